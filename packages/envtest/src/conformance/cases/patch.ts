/** PATCH: merge, JSON and strategic merge patches, preconditions, 415, and server-side apply. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { cmPath, configMap, expectStatus } from './helpers.js';

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

export function patchCases(ctx: SuiteContext): void {
  test('patch: merge patch adds, replaces and (with null) removes fields', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('m', { a: '1', b: '2' }));
    const res = await ctx.client.patch(cmPath(ns, 'm'), MERGE, { metadata: { labels: { x: 'y' } }, data: { a: '9', b: null } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ a: '9' });
    expect(res.body.metadata.labels).toEqual({ x: 'y' });
  });

  test('patch: JSON patch applies operations; a failing test op is 422', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('j', { a: '1' }));
    const ok = await ctx.client.patch(cmPath(ns, 'j'), JSON_PATCH, [
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'replace', path: '/data/a', value: '2' },
      { op: 'add', path: '/data/b', value: '3' },
    ]);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ a: '2', b: '3' });
    const failed = await ctx.client.patch(cmPath(ns, 'j'), JSON_PATCH, [{ op: 'test', path: '/data/a', value: 'nope' }]);
    expect(failed.status).toBe(422);
    expect(failed.body.kind).toBe('Status');
  });

  test("patch: strategic merge keeps both controllers' finalizers and merges ownerReferences by uid", async () => {
    const ns = await ctx.namespace();
    const owner = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `o-${uid}`, uid });
    await ctx.client.post(cmPath(ns), {
      ...configMap('s'),
      metadata: { name: 's', finalizers: ['a.example.com/one'], ownerReferences: [owner('11111111-1111-1111-1111-111111111111')] },
    });
    expect((await ctx.client.patch(cmPath(ns, 's'), SMP, { metadata: { finalizers: ['b.example.com/two'] } })).status).toBe(200);
    const res = await ctx.client.patch(cmPath(ns, 's'), SMP, {
      metadata: { ownerReferences: [owner('22222222-2222-2222-2222-222222222222')] },
    });
    expect(res.status).toBe(200);
    // Items the patch names lead; items only the server had follow (strategicpatch's normalizeElementOrder).
    expect(res.body.metadata.finalizers).toEqual(['b.example.com/two', 'a.example.com/one']);
    expect(res.body.metadata.ownerReferences.map((o: any) => o.uid)).toEqual([
      '22222222-2222-2222-2222-222222222222',
      '11111111-1111-1111-1111-111111111111',
    ]);
    // Clean up so the namespace holds nothing stuck.
    await ctx.client.patch(cmPath(ns, 's'), MERGE, { metadata: { finalizers: null } });
  });

  test('patch: a resourceVersion in the patch is a precondition (409 when stale)', async () => {
    const ns = await ctx.namespace();
    const created = (await ctx.client.post(cmPath(ns), configMap('p', { v: '1' }))).body;
    await ctx.client.patch(cmPath(ns, 'p'), MERGE, { data: { v: '2' } });
    const res = await ctx.client.patch(cmPath(ns, 'p'), MERGE, {
      metadata: { resourceVersion: created.metadata.resourceVersion },
      data: { v: '3' },
    });
    expectStatus(res, 409, 'Conflict');
  });

  test('patch: an unknown patch media type is 415', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('u'));
    const res = await ctx.client.patch(cmPath(ns, 'u'), 'text/plain', { data: {} });
    expectStatus(res, 415, 'UnsupportedMediaType');
  });

  test('patch: a missing object is 404', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.patch(cmPath(ns, 'none'), MERGE, { data: { a: 'b' } });
    expectStatus(res, 404, 'NotFound', 'configmaps "none" not found');
  });

  test('apply: fieldManager is required (422)', async () => {
    const ns = await ctx.namespace();
    // A User-Agent does not stand in for fieldManager on apply (it does for other writes).
    const res = await ctx.client.request('PATCH', cmPath(ns, 'ssa'), {
      rawBody: JSON.stringify(configMap('ssa')),
      contentType: APPLY,
      headers: { 'User-Agent': 'agent/1.0' },
    });
    expectStatus(res, 422, 'Invalid');
    expect(res.body.message).toContain('fieldManager: Required value');
  });

  test('apply: creates a missing object (201), then updates it (200) and records the manager', async () => {
    const ns = await ctx.namespace();
    const created = await ctx.client.request('PATCH', cmPath(ns, 'ssa'), {
      rawBody: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "1"\n',
      contentType: APPLY,
      query: { fieldManager: 'tester' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });
    const updated = await ctx.client.request('PATCH', cmPath(ns, 'ssa'), {
      body: configMap('ssa', { a: '2' }),
      contentType: APPLY,
      query: { fieldManager: 'tester' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ a: '2' });
    expect(updated.body.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'tester', operation: 'Apply' }));
  });

  test('apply: applying the same intent again, a second later, changes nothing (the entry keeps its time)', async () => {
    const ns = await ctx.namespace();
    const apply = () => ctx.client.patch(cmPath(ns, 'again'), APPLY, configMap('again', { a: '1' }), { fieldManager: 'tester' });
    const first = await apply();
    expect(first.status).toBe(201);
    // managedFields times have one-second resolution: the second apply lands in a later second than the first.
    const second = Math.floor(Date.now() / 1000);
    await expect.poll(() => Math.floor(Date.now() / 1000), { timeout: 3_000, interval: 20 }).toBeGreaterThan(second);
    const again = await apply();
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    expect(again.body.metadata.managedFields).toEqual(first.body.metadata.managedFields);
  });

  test('apply: a second manager changing an owned field conflicts (409) unless forced', async () => {
    const ns = await ctx.namespace();
    const apply = (manager: string, value: string, force?: boolean) =>
      ctx.client.request('PATCH', cmPath(ns, 'owned'), {
        body: configMap('owned', { key: value }),
        contentType: APPLY,
        query: { fieldManager: manager, force },
      });
    expect((await apply('first', 'a')).status).toBe(201);
    const clash = await apply('second', 'b');
    expectStatus(clash, 409, 'Conflict', /^Apply failed with 1 conflict: conflict with "first"/);
    expect(clash.body.details.causes).toContainEqual(expect.objectContaining({ reason: 'FieldManagerConflict', field: '.data.key' }));
    const forced = await apply('second', 'b', true);
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ key: 'b' });
  });

  test('managedFields: an Update owns the maps and lists it adds ("."); owner references are owned whole', async () => {
    const ns = await ctx.namespace();
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '11111111-1111-1111-1111-111111111111' };
    const created = await ctx.client.post(
      cmPath(ns),
      {
        ...configMap('dots', { k: 'v' }, { a: 'b' }),
        metadata: { name: 'dots', labels: { a: 'b' }, finalizers: ['f.example.com/x'], ownerReferences: [owner] },
      },
      { fieldManager: 'creator' },
    );
    expect(created.body.metadata.managedFields[0].fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:k': {} },
      'f:metadata': {
        'f:finalizers': { '.': {}, 'v:"f.example.com/x"': {} },
        'f:labels': { '.': {}, 'f:a': {} },
        'f:ownerReferences': { '.': {}, [`k:{"uid":"${owner.uid}"}`]: {} },
      },
    });
    const patched = await ctx.client.patch(
      cmPath(ns, 'dots'),
      SMP,
      { metadata: { finalizers: ['g.example.com/y'] } },
      { fieldManager: 'finalizer' },
    );
    const byManager = Object.fromEntries(patched.body.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    expect(byManager['finalizer']).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"g.example.com/y"': {} } } });
    await ctx.client.patch(cmPath(ns, 'dots'), MERGE, { metadata: { finalizers: null } });
  });

  test('apply: fields a manager stops applying are removed, fields of other managers stay', async () => {
    const ns = await ctx.namespace();
    const apply = (manager: string, labels: Record<string, string>, data: Record<string, string>) =>
      ctx.client.request('PATCH', cmPath(ns, 'shrink'), {
        body: configMap('shrink', data, labels),
        contentType: APPLY,
        query: { fieldManager: manager },
      });
    expect((await apply('one', { a: '1', b: '2' }, { x: '1', y: '2' })).status).toBe(201);
    expect((await apply('two', { c: '3' }, {})).status).toBe(200);
    const res = await apply('one', { a: '1' }, { x: '1' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ a: '1', c: '3' });
    expect(res.body.data).toEqual({ x: '1' });
  });

  test('managedFields: writers own the fields they change; apply conflicts with them unless forced', async () => {
    const ns = await ctx.namespace();
    const created = await ctx.client.post(cmPath(ns), configMap('mf', { a: '1', b: '1' }), { fieldManager: 'creator' });
    expect(created.body.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'creator',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } },
      }),
    ]);
    const edited = await ctx.client.patch(cmPath(ns, 'mf'), MERGE, { data: { b: '2' } }, { fieldManager: 'editor' });
    const byManager = Object.fromEntries(edited.body.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    // The creator added the map itself ("."), so it keeps owning it when another writer changes a key.
    expect(byManager).toEqual({ creator: { 'f:data': { '.': {}, 'f:a': {} } }, editor: { 'f:data': { 'f:b': {} } } });
    const apply = (force?: boolean) =>
      ctx.client.request('PATCH', cmPath(ns, 'mf'), {
        body: configMap('mf', { a: '9' }),
        contentType: APPLY,
        query: { fieldManager: 'applier', force },
      });
    const clash = await apply();
    expectStatus(clash, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "creator" using v1: .data.a');
    const forced = await apply(true);
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ a: '9', b: '2' });
  });

  test('patch: force on a non-apply patch is 422', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('f'));
    const res = await ctx.client.patch(cmPath(ns, 'f'), MERGE, { data: { a: 'b' } }, { force: true });
    expectStatus(res, 422, 'Invalid');
  });
}
