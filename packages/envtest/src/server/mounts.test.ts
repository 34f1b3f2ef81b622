import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { widgetCrd } from '../conformance/cases/crd.js';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import type { PathMount } from './options.js';

/** `/vw/clusters/<name>/rest`: a virtual workspace showing clusters a and b, ConfigMaps, read-only Namespaces and the widgets CRD. */
const PREFIX = '/vw/clusters/';
const vw: PathMount = {
  resolve(path) {
    if (!path.startsWith(PREFIX)) return undefined;
    const rest = path.slice(PREFIX.length);
    const slash = rest.indexOf('/');
    return {
      cluster: slash < 0 ? rest : rest.slice(0, slash),
      path: slash < 0 ? '/' : rest.slice(slash),
      clusters: (name) => name === 'a' || name === 'b',
      resources: (group, resource) =>
        (group === '' && (resource === 'configmaps' || resource === 'namespaces')) || group === 'mnt.example.com',
      readOnlyResources: (group, resource) => group === '' && resource === 'namespaces',
    };
  },
};

describe('path mounts', () => {
  let server: ApiServer;
  let root: KubeHttpClient;
  beforeAll(async () => {
    server = await startApiServer({ logicalClusters: true, mounts: [vw] });
    root = new KubeHttpClient(server.kubeconfig());
    for (const c of ['a', 'b', 'c'])
      expect(
        (await root.post(`/clusters/${c}/api/v1/namespaces/default/configmaps`, { metadata: { name: 'cm' }, data: { c } })).status,
      ).toBe(201);
  });
  afterAll(async () => {
    root.close();
    await server.close();
  });

  test('the wildcard under a mount lists only the clusters it shows, annotated with their cluster', async () => {
    const list = await root.get('/vw/clusters/*/api/v1/configmaps', { fieldSelector: 'metadata.name=cm' });
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: any) => i.metadata.annotations['kcp.io/cluster'])).toEqual(['a', 'b']);
    // Pages are cut after filtering, so a limit never yields an empty page with a continue token.
    const page = await root.get('/vw/clusters/*/api/v1/configmaps', { fieldSelector: 'metadata.name=cm', limit: 1 });
    expect(page.body.items).toHaveLength(1);
    const rest = await root.get('/vw/clusters/*/api/v1/configmaps', {
      fieldSelector: 'metadata.name=cm',
      limit: 1,
      continue: page.body.metadata.continue,
    });
    expect(rest.body.items.map((i: any) => i.metadata.annotations['kcp.io/cluster'])).toEqual(['b']);
    expect(rest.body.metadata.continue).toBeUndefined();
  });

  test('a wildcard watch under a mount never sees the clusters it hides', async () => {
    const w = await root.watch('/vw/clusters/*/api/v1/configmaps', { fieldSelector: 'metadata.name=cm' });
    try {
      const initial = [await w.next(), await w.next()].map((e) => e!.object.metadata.annotations['kcp.io/cluster']);
      expect(initial).toEqual(['a', 'b']);
      await root.patch('/clusters/c/api/v1/namespaces/default/configmaps/cm', 'application/merge-patch+json', { data: { v: '1' } });
      await root.patch('/clusters/b/api/v1/namespaces/default/configmaps/cm', 'application/merge-patch+json', { data: { v: '1' } });
      const next = await w.next();
      expect([next!.type, next!.object.metadata.annotations['kcp.io/cluster']]).toEqual(['MODIFIED', 'b']);
    } finally {
      w.close();
    }
  });

  test('named access reaches the clusters the mount shows, and is 404 for the others', async () => {
    const a = await root.get('/vw/clusters/a/api/v1/namespaces/default/configmaps/cm');
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ c: 'a' });
    expect((await root.get('/vw/clusters/c/api/v1/namespaces/default/configmaps/cm')).status).toBe(404);
    expect((await root.post('/vw/clusters/c/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } })).status).toBe(404);
    const created = await root.post('/vw/clusters/b/api/v1/namespaces/default/configmaps', { metadata: { name: 'through-mount' } });
    expect(created.status).toBe(201);
    expect((await root.get('/clusters/b/api/v1/namespaces/default/configmaps/through-mount')).status).toBe(200);
  });

  test('resources outside the mount are 404, also in discovery', async () => {
    expect((await root.get('/vw/clusters/a/api/v1/namespaces/default/secrets')).status).toBe(404);
    expect((await root.get('/clusters/a/api/v1/namespaces/default/secrets')).status).toBe(200);
    const core = await root.get('/vw/clusters/a/api/v1');
    expect(core.body.resources.map((r: any) => r.name).sort()).toEqual([
      'configmaps',
      'namespaces',
      'namespaces/finalize',
      'namespaces/status',
    ]);
    expect((await root.get('/vw/clusters/a/apis/apps/v1')).status).toBe(404);
    const groups = await root.get('/vw/clusters/*/apis');
    expect(groups.body.groups).toEqual([]);
  });

  test('read-only resources answer reads and refuse writes with 405', async () => {
    expect((await root.get('/vw/clusters/a/api/v1/namespaces/default')).status).toBe(200);
    const res = await root.post('/vw/clusters/a/api/v1/namespaces', { metadata: { name: 'nope' } });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
    expect(res.body.message).toMatch(/^create is not supported on resources of kind "namespaces"/);
    expect((await root.delete('/vw/clusters/a/api/v1/namespaces/default')).status).toBe(405);
    expect((await root.get('/clusters/a/api/v1/namespaces/nope')).status).toBe(404);
  });

  test('wildcard discovery shows the CRDs of the clusters the mount shows, and only those', async () => {
    const group = 'mnt.example.com';
    expect((await root.post('/clusters/c/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd(group))).status).toBe(201);
    await expect.poll(async () => (await root.get(`/clusters/c/apis/${group}/v1`)).status).toBe(200);
    expect((await root.get(`/vw/clusters/*/apis/${group}/v1`)).status).toBe(404);
    expect((await root.post('/clusters/a/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd(group))).status).toBe(201);
    await expect.poll(async () => (await root.get(`/vw/clusters/*/apis/${group}/v1`)).status).toBe(200);
    const groups = await root.get('/vw/clusters/*/apis');
    expect(groups.body.groups.map((g: any) => g.name)).toEqual([group]);
  });

  test('addMount serves a mount until its remover runs; mounts need logical clusters', async () => {
    const remove = server.addMount({
      resolve: (p) => (p.startsWith('/other/') ? { cluster: 'c', path: p.slice('/other'.length) } : undefined),
    });
    expect((await root.get('/other/api/v1/namespaces/default/configmaps/cm')).body.data).toMatchObject({ c: 'c' });
    remove();
    expect((await root.get('/other/api/v1/namespaces/default/configmaps/cm')).status).toBe(404);
    await expect(startApiServer({ mounts: [vw] })).rejects.toThrow(/mounts require logicalClusters/);
  });
});
