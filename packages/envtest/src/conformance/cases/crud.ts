/** Create, get and update: server-owned metadata, optimistic concurrency, exact Status errors, built-in quirks. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { cmPath, configMap, expectStatus, rvOf } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function crudCases(ctx: SuiteContext): void {
  test('create: 201 with server-owned uid, creationTimestamp and resourceVersion; client values are wiped', async () => {
    const ns = await ctx.namespace();
    const body = configMap('a', { k: 'v' });
    (body['metadata'] as any).uid = 'client-uid';
    (body['metadata'] as any).creationTimestamp = '2001-01-01T00:00:00Z';
    const res = await ctx.client.post(cmPath(ns), body);
    expect(res.status).toBe(201);
    expect(res.body.metadata.uid).toMatch(UUID);
    expect(res.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(res.body.metadata.creationTimestamp).not.toBe('2001-01-01T00:00:00Z');
    expect(res.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(res.body.metadata.namespace).toBe(ns);
    expect(res.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } });
    const got = await ctx.client.get(cmPath(ns, 'a'));
    expect(got.status).toBe(200);
    expect(got.body.metadata.uid).toBe(res.body.metadata.uid);
  });

  test('create: a body without apiVersion and kind takes them from the URL', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), { metadata: { name: 'bare' }, data: { a: 'b' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
  });

  test('create: a YAML body is accepted with Content-Type application/yaml', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.request('POST', cmPath(ns), {
      rawBody: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\n',
      contentType: 'application/yaml',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ k: 'v' });
  });

  test('create: a resourceVersion in the body is a 500 from storage', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), { ...configMap('rv'), metadata: { name: 'rv', resourceVersion: '5' } });
    expect(res.status).toBe(500);
    expect(res.body.message).toBe('resourceVersion should not be set on objects to be created');
  });

  test('create: a duplicate is 409 AlreadyExists with the resource in details.kind', async () => {
    const ns = await ctx.namespace();
    expect((await ctx.client.post(cmPath(ns), configMap('dup'))).status).toBe(201);
    const res = await ctx.client.post(cmPath(ns), configMap('dup'));
    expectStatus(res, 409, 'AlreadyExists', 'configmaps "dup" already exists');
    expect(res.body.details).toMatchObject({ name: 'dup', kind: 'configmaps' });
    expect(res.body.status).toBe('Failure');
  });

  test('get: a missing object is 404 NotFound with an exact Status body', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns, 'missing'));
    expectStatus(res, 404, 'NotFound', 'configmaps "missing" not found');
    expect(res.body).toMatchObject({ apiVersion: 'v1', metadata: {}, status: 'Failure', details: { name: 'missing', kind: 'configmaps' } });
  });

  test('create: generateName keeps the prefix and adds 5 characters', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), { metadata: { generateName: 'gen-' } });
    expect(res.status).toBe(201);
    expect(res.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test('create: no name and no generateName is 422 Invalid', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), { metadata: {} });
    expectStatus(res, 422, 'Invalid');
    expect(res.body.message).toContain('metadata.name: Required value: name or generateName is required');
    expect(res.body.details.causes).toContainEqual(expect.objectContaining({ reason: 'FieldValueRequired', field: 'metadata.name' }));
  });

  test('create: an invalid name is 422 Invalid', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), configMap('Not_Valid'));
    expectStatus(res, 422, 'Invalid', /^ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"/);
  });

  test('create: into a missing namespace is 404 for the namespace', async () => {
    const res = await ctx.client.post(cmPath('no-such-ns-xyz'), configMap('a'));
    expectStatus(res, 404, 'NotFound', 'namespaces "no-such-ns-xyz" not found');
  });

  test('create: a body namespace different from the URL is 400', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), { metadata: { name: 'x', namespace: 'other' } });
    expectStatus(res, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  });

  test('create: a mismatched apiVersion is 400', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('Status');
  });

  test('create: dryRun=All answers 201 but stores nothing', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(cmPath(ns), configMap('dry'), { dryRun: 'All' });
    expect(res.status).toBe(201);
    expect(res.body.metadata.uid).toMatch(UUID);
    expect((await ctx.client.get(cmPath(ns, 'dry'))).status).toBe(404);
  });

  test('update: a stale resourceVersion is 409 Conflict', async () => {
    const ns = await ctx.namespace();
    const created = (await ctx.client.post(cmPath(ns), configMap('c', { v: '1' }))).body;
    const first = await ctx.client.put(cmPath(ns, 'c'), { ...created, data: { v: '2' } });
    expect(first.status).toBe(200);
    expect(rvOf(first.body)).toBeGreaterThan(rvOf(created));
    const stale = await ctx.client.put(cmPath(ns, 'c'), { ...created, data: { v: '3' } });
    expectStatus(
      stale,
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  test('update: an identical PUT keeps the resourceVersion', async () => {
    const ns = await ctx.namespace();
    const created = (await ctx.client.post(cmPath(ns), configMap('same', { v: '1' }))).body;
    const res = await ctx.client.put(cmPath(ns, 'same'), created);
    expect(res.status).toBe(200);
    expect(res.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  test('update: a name different from the URL is 400', async () => {
    const ns = await ctx.namespace();
    const created = (await ctx.client.post(cmPath(ns), configMap('n1'))).body;
    const res = await ctx.client.put(cmPath(ns, 'n1'), { ...created, metadata: { ...created.metadata, name: 'n2' } });
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
  });

  test('update: a missing object is 404 for types without create-on-update', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.put(cmPath(ns, 'ghost'), configMap('ghost'));
    expectStatus(res, 404, 'NotFound', 'configmaps "ghost" not found');
  });

  test('update: Lease allows create-on-update (201)', async () => {
    const ns = await ctx.namespace();
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-01-02T03:04:05.000000Z' },
    };
    const res = await ctx.client.put(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/leader`, lease);
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({ holderIdentity: 'a', renewTime: '2026-01-02T03:04:05.000000Z' });
  });

  test('resourceVersion is one global counter across resources', async () => {
    const ns = await ctx.namespace();
    const a = (await ctx.client.post(cmPath(ns), configMap('g1'))).body;
    const b = (await ctx.client.post(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' } })).body;
    const c = (await ctx.client.post(cmPath(ns), configMap('g2'))).body;
    expect(rvOf(b)).toBeGreaterThan(rvOf(a));
    expect(rvOf(c)).toBeGreaterThan(rvOf(b));
  });

  test('Secret: stringData is merged into base64 data and type defaults to Opaque', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.post(`/api/v1/namespaces/${ns}/secrets`, {
      metadata: { name: 's' },
      data: { a: Buffer.from('x').toString('base64') },
      stringData: { b: 'hello' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ a: Buffer.from('x').toString('base64'), b: Buffer.from('hello').toString('base64') });
    expect(res.body.stringData).toBeUndefined();
    expect(res.body.type).toBe('Opaque');
  });

  test('Namespace: created Active with the kubernetes finalizer and the metadata.name label', async () => {
    const name = ctx.unique('nsdefaults');
    const res = await ctx.client.post('/api/v1/namespaces', { metadata: { name } });
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ phase: 'Active' });
    expect(res.body.spec.finalizers).toEqual(['kubernetes']);
    expect(res.body.metadata.labels).toMatchObject({ 'kubernetes.io/metadata.name': name });
  });

  test('Namespace: the system namespaces exist', async () => {
    for (const name of ['default', 'kube-system', 'kube-public'])
      expect((await ctx.client.get(`/api/v1/namespaces/${name}`)).status, name).toBe(200);
  });

  test('routing: a namespaced object is not reachable without its namespace, nor a cluster-scoped one with one', async () => {
    expect((await ctx.client.get('/api/v1/configmaps/x')).status).toBe(404);
    expect((await ctx.client.get('/api/v1/namespaces/default/namespaces/default')).status).toBe(404);
  });

  test('bad input: malformed JSON is 400 and the server keeps serving', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.request('POST', cmPath(ns), { rawBody: '{"metadata": ', contentType: 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('Status');
    expect((await ctx.client.get('/api/v1/namespaces/default')).status).toBe(200);
  });
}
