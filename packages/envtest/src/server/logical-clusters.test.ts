import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { widgetCrd } from '../conformance/cases/crd.js';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';

describe('kcp mode: logical clusters', () => {
  let server: ApiServer;
  let root: KubeHttpClient;
  beforeAll(async () => {
    server = await startApiServer({ logicalClusters: true });
    root = new KubeHttpClient(server.kubeconfig());
  });
  afterAll(async () => {
    root.close();
    await server.close();
  });

  const cms = (cluster: string, ns = 'default') => `/clusters/${cluster}/api/v1/namespaces/${ns}/configmaps`;

  test('each logical cluster has its own objects (and system namespaces); the same name may exist in several', async () => {
    expect((await root.post(cms('alpha'), { metadata: { name: 'same' }, data: { from: 'alpha' } })).status).toBe(201);
    expect((await root.post(cms('beta'), { metadata: { name: 'same' }, data: { from: 'beta' } })).status).toBe(201);
    const a = await root.get(`${cms('alpha')}/same`);
    expect(a.body.data).toEqual({ from: 'alpha' });
    expect(a.body.metadata.annotations).toEqual({ 'kcp.io/cluster': 'alpha' });
    expect((await root.get(`${cms('gamma')}/same`)).status).toBe(404);
    expect((await root.get('/api/v1/namespaces/default/configmaps/same')).status).toBe(404);
  });

  test('the wildcard lists and watches across clusters, annotating each object with its cluster', async () => {
    const list = await root.get('/clusters/*/api/v1/configmaps', { fieldSelector: 'metadata.name=same' });
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: any) => [i.metadata.annotations['kcp.io/cluster'], i.data.from])).toEqual([
      ['alpha', 'alpha'],
      ['beta', 'beta'],
    ]);
    const w = await root.watch('/clusters/*/api/v1/configmaps', { resourceVersion: list.body.metadata.resourceVersion });
    try {
      await root.post(cms('delta'), { metadata: { name: 'new' } });
      await root.post(cms('alpha'), { metadata: { name: 'new' } });
      const events = await w.until((e) => e.object.metadata.annotations['kcp.io/cluster'] === 'alpha');
      expect(events.map((e) => `${e.type}:${e.object.metadata.annotations['kcp.io/cluster']}`)).toEqual(['ADDED:delta', 'ADDED:alpha']);
    } finally {
      w.close();
    }
  });

  test('the wildcard refuses every verb but list and watch with 405', async () => {
    const res = await root.post('/clusters/*/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'MethodNotAllowed',
      message: 'create is not supported on resources of kind "configmaps" in the `*` logical cluster',
    });
  });

  test('a CRD is served only in its own logical cluster, and in the wildcard view', async () => {
    const group = 'lc.example.com';
    expect((await root.post('/clusters/owner/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd(group))).status).toBe(201);
    await expect.poll(async () => (await root.get(`/clusters/owner/apis/${group}/v1`)).status).toBe(200);
    expect((await root.get(`/clusters/other/apis/${group}/v1`)).status).toBe(404);
    expect((await root.get(`/clusters/*/apis/${group}/v1`)).status).toBe(200);
    expect(
      (
        await root.post(`/clusters/owner/apis/${group}/v1/namespaces/default/widgets`, {
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name: 'w' },
          spec: { size: 1 },
        })
      ).status,
    ).toBe(201);
    const all = await root.get(`/clusters/*/apis/${group}/v1/widgets`);
    expect(all.body.items.map((i: any) => i.metadata.annotations['kcp.io/cluster'])).toEqual(['owner']);
  });

  test('a kubeconfig can address one logical cluster; bad names are refused', async () => {
    const client = new KubeHttpClient(server.kubeconfig({ logicalCluster: 'alpha' }));
    try {
      const res = await client.get('/api/v1/namespaces/default/configmaps/same');
      expect(res.body.data).toEqual({ from: 'alpha' });
    } finally {
      client.close();
    }
    expect(() => server.kubeconfig({ logicalCluster: 'Not Valid' })).toThrow(/invalid logical cluster/);
    expect((await root.get('/clusters/Not_Valid/api/v1/namespaces')).status).toBe(404);
  });
});
