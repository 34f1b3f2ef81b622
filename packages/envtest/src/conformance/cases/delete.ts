/** DELETE: Status bodies, finalizers and deletionTimestamp, preconditions, collections and namespace lifecycle. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { cmPath, configMap, expectStatus } from './helpers.js';

export function deleteCases(ctx: SuiteContext): void {
  test('delete: without finalizers the object goes and the answer is a Success Status', async () => {
    const ns = await ctx.namespace();
    const created = (await ctx.client.post(cmPath(ns), configMap('d'))).body;
    const res = await ctx.client.delete(cmPath(ns, 'd'), { propagationPolicy: 'Background' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Success',
      details: { name: 'd', kind: 'configmaps', uid: created.metadata.uid },
    });
    expect((await ctx.client.get(cmPath(ns, 'd'))).status).toBe(404);
    expectStatus(await ctx.client.delete(cmPath(ns, 'd')), 404, 'NotFound');
  });

  test('delete: ServiceAccount answers with the deleted object', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa' } });
    const res = await ctx.client.delete(`/api/v1/namespaces/${ns}/serviceaccounts/sa`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'sa' } });
  });

  test('delete: with a finalizer the object stays, marked, until the finalizer is removed', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), { metadata: { name: 'f', finalizers: ['example.com/hold'] } });
    const start = (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion;
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: start });
    try {
      const res = await ctx.client.delete(cmPath(ns, 'f'));
      expect(res.status).toBe(200);
      expect(res.body.kind).toBe('ConfigMap');
      expect(res.body.metadata.deletionTimestamp).toMatch(/Z$/);
      expect(await w.next()).toMatchObject({ type: 'MODIFIED' });
      const marked = (await ctx.client.get(cmPath(ns, 'f'))).body;
      expect(marked.metadata.deletionTimestamp).toBe(res.body.metadata.deletionTimestamp);
      // A second delete changes nothing.
      expect((await ctx.client.delete(cmPath(ns, 'f'))).body.metadata.resourceVersion).toBe(marked.metadata.resourceVersion);
      // New finalizers cannot be added while deleting.
      const add = await ctx.client.put(cmPath(ns, 'f'), {
        ...marked,
        metadata: { ...marked.metadata, finalizers: ['example.com/hold', 'example.com/more'] },
      });
      expectStatus(add, 422, 'Invalid');
      const removed = await ctx.client.put(cmPath(ns, 'f'), { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
      expect(removed.status).toBe(200);
      expect(await w.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'f' } } });
      expect((await ctx.client.get(cmPath(ns, 'f'))).status).toBe(404);
    } finally {
      w.close();
    }
  });

  test('delete: a uid precondition that does not match is 409', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('pre'));
    const res = await ctx.client.delete(cmPath(ns, 'pre'), { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } });
    expectStatus(res, 409, 'Conflict');
    expect((await ctx.client.get(cmPath(ns, 'pre'))).status).toBe(200);
  });

  test('delete: Foreground propagation adds the foregroundDeletion finalizer', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('fg'));
    const res = await ctx.client.delete(cmPath(ns, 'fg'), { propagationPolicy: 'Foreground' });
    expect(res.status).toBe(200);
    const got = await ctx.client.get(cmPath(ns, 'fg'));
    // Without a garbage collector (envtest) it stays, marked; with one it may already be gone.
    if (got.status === 200) {
      expect(got.body.metadata.finalizers).toContain('foregroundDeletion');
      expect(got.body.metadata.deletionTimestamp).toBeDefined();
      await ctx.client.patch(cmPath(ns, 'fg'), 'application/merge-patch+json', { metadata: { finalizers: null } });
    } else expect(got.status).toBe(404);
  });

  test('deletecollection: deletes the objects matching a label selector', async () => {
    const ns = await ctx.namespace();
    for (const [name, app] of [
      ['a', 'x'],
      ['b', 'x'],
      ['c', 'y'],
    ] as const)
      await ctx.client.post(cmPath(ns), configMap(name, {}, { app }));
    const res = await ctx.client.delete(cmPath(ns), undefined, { labelSelector: 'app=x' });
    expect(res.status).toBe(200);
    const left = (await ctx.client.get(cmPath(ns))).body.items.map((i: any) => i.metadata.name);
    expect(left).toEqual(['c']);
  });

  test('namespace: deleting marks it Terminating and new content is refused with 403', async () => {
    const ns = await ctx.namespace('term');
    const res = await ctx.client.delete(`/api/v1/namespaces/${ns}`);
    expect(res.status).toBe(200);
    const got = await ctx.client.get(`/api/v1/namespaces/${ns}`);
    // A namespace controller (real clusters) may already have removed it; envtest keeps it Terminating.
    if (got.status === 200) {
      expect(got.body.status.phase).toBe('Terminating');
      const create = await ctx.client.post(cmPath(ns), configMap('late'));
      expectStatus(
        create,
        403,
        'Forbidden',
        `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      );
    }
  });
}
