/** LIST: selectors, limit/continue snapshots, resourceVersion semantics and option validation. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { cmPath, configMap, expectStatus } from './helpers.js';

async function seed(ctx: SuiteContext, ns: string): Promise<void> {
  const tiers = ['a', 'a', 'b', 'c', undefined];
  for (const [i, tier] of tiers.entries()) {
    const res = await ctx.client.post(cmPath(ns), configMap(`cm-${i}`, {}, tier ? { tier } : { other: 'x' }));
    expect(res.status).toBe(201);
  }
}

const names = (body: any): string[] => body.items.map((i: any) => i.metadata.name);

export function listCases(ctx: SuiteContext): void {
  test('list: returns the kind List with a numeric resourceVersion and [] when empty', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', items: [] });
    expect(res.body.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  test('list: label selectors (=, !=, in, notin, exists, !key)', async () => {
    const ns = await ctx.namespace();
    await seed(ctx, ns);
    const sel = async (labelSelector: string): Promise<string[]> => names((await ctx.client.get(cmPath(ns), { labelSelector })).body);
    expect(await sel('tier=a')).toEqual(['cm-0', 'cm-1']);
    expect(await sel('tier==b')).toEqual(['cm-2']);
    expect(await sel('tier!=a')).toEqual(['cm-2', 'cm-3', 'cm-4']);
    expect(await sel('tier in (b,c)')).toEqual(['cm-2', 'cm-3']);
    expect(await sel('tier notin (a)')).toEqual(['cm-2', 'cm-3', 'cm-4']);
    expect(await sel('tier')).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3']);
    expect(await sel('!tier')).toEqual(['cm-4']);
    expect(await sel('tier=a,other')).toEqual([]);
  });

  test('list: a malformed label selector is 400', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns), { labelSelector: 'tier in (a' });
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
  });

  test('list: field selectors on metadata.name and metadata.namespace; other fields are 400', async () => {
    const ns = await ctx.namespace();
    await seed(ctx, ns);
    expect(names((await ctx.client.get(cmPath(ns), { fieldSelector: 'metadata.name=cm-2' })).body)).toEqual(['cm-2']);
    expect(names((await ctx.client.get(cmPath(ns), { fieldSelector: 'metadata.name!=cm-2' })).body)).toEqual([
      'cm-0',
      'cm-1',
      'cm-3',
      'cm-4',
    ]);
    const all = await ctx.client.get('/api/v1/configmaps', { fieldSelector: `metadata.namespace=${ns}` });
    expect(names(all.body)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
    const bad = await ctx.client.get(cmPath(ns), { fieldSelector: 'spec.foo=bar' });
    expect(bad.status).toBe(400);
  });

  test('list: limit/continue pages are a consistent snapshot', async () => {
    const ns = await ctx.namespace();
    await seed(ctx, ns);
    const p1 = await ctx.client.get(cmPath(ns), { limit: 2 });
    expect(names(p1.body)).toEqual(['cm-0', 'cm-1']);
    expect(p1.body.metadata.continue).toEqual(expect.any(String));
    // A write between pages must not show up in later pages.
    expect((await ctx.client.post(cmPath(ns), configMap('cm-2a'))).status).toBe(201);
    const p2 = await ctx.client.get(cmPath(ns), { limit: 2, continue: p1.body.metadata.continue });
    expect(names(p2.body)).toEqual(['cm-2', 'cm-3']);
    expect(p2.body.metadata.resourceVersion).toBe(p1.body.metadata.resourceVersion);
    const p3 = await ctx.client.get(cmPath(ns), { limit: 2, continue: p2.body.metadata.continue });
    expect(names(p3.body)).toEqual(['cm-4']);
    expect(p3.body.metadata.continue ?? '').toBe('');
  });

  test('list: a garbage continue token is 400', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns), { limit: 2, continue: 'garbage!!' });
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
  });

  test('list: resourceVersion ahead of the server is 504 Timeout (too large)', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns), { resourceVersion: '999999999', resourceVersionMatch: 'NotOlderThan' });
    expectStatus(res, 504, 'Timeout', /^Timeout: Too large resource version: 999999999, current: \d+$/);
  });

  test('list: resourceVersionMatch without resourceVersion is 422', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns), { resourceVersionMatch: 'Exact' });
    expectStatus(res, 422, 'Invalid');
  });

  test('list: resourceVersionMatch=Exact returns the state at that revision', async () => {
    const ns = await ctx.namespace();
    const a = await ctx.client.post(cmPath(ns), configMap('exact-a', { v: '1' }));
    const snapshotRv = a.body.metadata.resourceVersion;
    await ctx.client.put(cmPath(ns, 'exact-a'), { ...a.body, data: { v: '2' } });
    await ctx.client.post(cmPath(ns), configMap('exact-b'));
    const res = await ctx.client.get(cmPath(ns), { resourceVersion: snapshotRv, resourceVersionMatch: 'Exact' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.resourceVersion).toBe(snapshotRv);
    expect(res.body.items.map((i: any) => [i.metadata.name, i.data.v])).toEqual([['exact-a', '1']]);
  });

  test('list: an Exact list from compacted history is 410 Expired', async (t) => {
    if (!ctx.backend.compact) return t.skip('backend cannot compact');
    const ns = await ctx.namespace();
    const a = await ctx.client.post(cmPath(ns), configMap('old'));
    await ctx.client.post(cmPath(ns), configMap('new'));
    ctx.backend.compact();
    const res = await ctx.client.get(cmPath(ns), { resourceVersion: a.body.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expectStatus(res, 410, 'Expired');
  });

  test('list: a continue token from compacted history is 410 Expired with a fresh continue token', async (t) => {
    if (!ctx.backend.compact) return t.skip('backend cannot compact');
    const ns = await ctx.namespace();
    await seed(ctx, ns);
    const p1 = await ctx.client.get(cmPath(ns), { limit: 2 });
    await ctx.client.post(cmPath(ns), configMap('later'));
    ctx.backend.compact();
    const res = await ctx.client.get(cmPath(ns), { limit: 2, continue: p1.body.metadata.continue });
    expectStatus(res, 410, 'Expired', /^The provided continue parameter is too old/);
    expect(res.body.metadata.continue).toEqual(expect.any(String));
    const inconsistent = await ctx.client.get(cmPath(ns), { limit: 10, continue: res.body.metadata.continue });
    expect(inconsistent.status).toBe(200);
    expect(names(inconsistent.body)).toEqual(['cm-2', 'cm-3', 'cm-4', 'later']);
  });

  test('list: the all-namespaces collection lists across namespaces', async () => {
    const ns1 = await ctx.namespace();
    const ns2 = await ctx.namespace();
    await ctx.client.post(cmPath(ns1), configMap('x', {}, { run: ns1 }));
    await ctx.client.post(cmPath(ns2), configMap('x', {}, { run: ns1 }));
    const res = await ctx.client.get('/api/v1/configmaps', { labelSelector: `run=${ns1}` });
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: any) => i.metadata.namespace).sort()).toEqual([ns1, ns2].sort());
  });

  test('list: ?watch=false is a list, not a watch', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns), { watch: 'false' });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('ConfigMapList');
  });
}
