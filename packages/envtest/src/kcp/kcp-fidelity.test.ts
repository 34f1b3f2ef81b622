/**
 * The parts of the fake kcp the upstream Go cross-check forced (see the envtest README): permission claims served
 * through claim labels, kcp's APIBinding finalizer, naming conflicts that hold a binding back, and shard restarts.
 * These hold without Go, so the fake stays right where the cross-check skips.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { KcpServer } from './kcp-server.js';
import { startKcpServer } from './kcp-server.js';
import type { Workspace } from './workspaces.js';

const EXPORT = 'claims.example.com';
const CLAIMS = [{ group: '', resource: 'configmaps' }];

const thingSchema = {
  metadata: { name: 'v1.things.claims.example.com' },
  spec: {
    group: 'claims.example.com',
    names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
const names = (body: any): string[] =>
  (body.items as any[]).map((i) => `${i.metadata.annotations['kcp.io/cluster']}/${i.metadata.name}`).sort();

describe('fake kcp: what the upstream cross-check needs', () => {
  let kcp: KcpServer;
  let http: KubeHttpClient;
  let provider: Workspace;
  let accepting: Workspace;
  let declining: Workspace;
  const vw = (path: string) => `${kcp.endpointUrl('one', provider, EXPORT).slice(kcp.url.length)}/clusters/${path}`;

  beforeAll(async () => {
    kcp = await startKcpServer({ shards: ['one', 'two'] });
    http = new KubeHttpClient(kcp.kubeconfig());
    provider = await kcp.createWorkspace('root:provider');
    accepting = await kcp.createWorkspace('root:accepting');
    declining = await kcp.createWorkspace('root:declining');
    await kcp.createExport(provider, { name: EXPORT, schemas: [thingSchema], permissionClaims: CLAIMS, version: 'v1alpha2' });
    await kcp.bind(declining, { exportPath: 'root:provider', exportName: EXPORT });
  });
  afterAll(async () => {
    http.close();
    await kcp.close();
  });

  test('a claimed resource shows only the workspaces that accepted the claim, objects from before it included', async () => {
    for (const ws of [accepting, declining])
      expect((await http.post(`/clusters/${ws.name}/api/v1/namespaces/default/configmaps`, configMap('early'))).status).toBe(201);
    const watch = await http.watch(vw('*/api/v1/configmaps'));
    try {
      expect((await http.get(vw('*/api/v1/configmaps'))).body.items).toEqual([]);
      await kcp.bind(accepting, { exportPath: 'root:provider', exportName: EXPORT, acceptClaims: CLAIMS });
      const [added] = await watch.until((e) => e.type === 'ADDED', 10_000);
      expect(`${added!.object.metadata.annotations['kcp.io/cluster']}/${added!.object.metadata.name}`).toBe(`${accepting.name}/early`);
      await expect.poll(async () => names((await http.get(vw('*/api/v1/configmaps'))).body)).toEqual([`${accepting.name}/early`]);
      expect((await http.get(vw(`${declining.name}/api/v1/namespaces/default/configmaps/early`))).status).toBe(404);
      expect((await http.post(vw(`${accepting.name}/api/v1/namespaces/default/configmaps`), configMap('late'))).status).toBe(201);
      await expect
        .poll(async () => names((await http.get(vw('*/api/v1/configmaps'))).body))
        .toEqual([`${accepting.name}/early`, `${accepting.name}/late`]);
      expect((await http.get(vw('*/api/v1'))).body.resources.map((r: any) => r.name)).toContain('configmaps');
    } finally {
      watch.close();
    }
  });

  test('deleting a binding deletes its bound objects and drops its claim labels first, each seen as DELETED', async () => {
    expect(
      (
        await http.post(vw(`${accepting.name}/apis/claims.example.com/v1/namespaces/default/things`), {
          apiVersion: 'claims.example.com/v1',
          kind: 'Thing',
          metadata: { name: 'rock' },
        })
      ).status,
    ).toBe(201);
    const things = await http.watch(vw('*/apis/claims.example.com/v1/things'));
    const configMaps = await http.watch(vw('*/api/v1/configmaps'));
    const bindings = await http.watch(vw('*/apis/apis.kcp.io/v1alpha1/apibindings'));
    try {
      await kcp.unbind(accepting, EXPORT);
      const gone = await things.until((e) => e.type === 'DELETED', 10_000);
      expect(gone.at(-1)!.object.metadata.name).toBe('rock');
      const left = await configMaps.until((e) => e.type === 'DELETED' && e.object.metadata.name === 'late', 10_000);
      expect(
        left
          .filter((e) => e.type === 'DELETED')
          .map((e) => e.object.metadata.name)
          .sort(),
      ).toContain('early');
      await bindings.until((e) => e.type === 'DELETED' && e.object.metadata.annotations['kcp.io/cluster'] === accepting.name, 10_000);
      // The ConfigMaps are the workspace's, not the binding's: they stay.
      expect((await http.get(`/clusters/${accepting.name}/api/v1/namespaces/default/configmaps/late`)).status).toBe(200);
    } finally {
      for (const w of [things, configMaps, bindings]) w.close();
    }
  });

  test('a CRD that conflicts with an exported resource keeps a binding from Ready until it goes', async () => {
    const ws = await kcp.createWorkspace('root:conflicted');
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.claims.example.com' },
      spec: thingSchema.spec,
    };
    expect((await http.post(`/clusters/${ws.name}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd)).status).toBe(201);
    await kcp.bind(ws, { exportPath: 'root:provider', exportName: EXPORT, waitReady: false });
    const ready = async () =>
      (await http.get(`/clusters/${ws.name}/apis/apis.kcp.io/v1alpha1/apibindings/${EXPORT}`)).body.status?.conditions?.find(
        (c: any) => c.type === 'Ready',
      );
    await expect.poll(ready).toMatchObject({ status: 'False', reason: 'NamingConflicts' });
    expect(
      (await http.delete(`/clusters/${ws.name}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.claims.example.com`)).status,
    ).toBe(200);
    await expect.poll(ready).toMatchObject({ status: 'True' });
  });

  test('a stopped shard cuts its watches and answers 503; started again, old resourceVersions are gone', async () => {
    const list = await http.get(vw('*/apis/apis.kcp.io/v1alpha1/apibindings'));
    const watch = await http.watch(vw('*/apis/apis.kcp.io/v1alpha1/apibindings'), { resourceVersion: list.body.metadata.resourceVersion });
    const other = await http.watch(`${kcp.endpointUrl('two', provider, EXPORT).slice(kcp.url.length)}/clusters/*/api/v1/configmaps`);
    try {
      expect(other.status).toBe(200);
      kcp.stopShard('one');
      await watch.waitForEnd();
      expect(watch.broken).toBe(true);
      expect((await http.get(vw('*/apis/apis.kcp.io/v1alpha1/apibindings'))).status).toBe(503);
      expect(other.ended).toBe(false);
      // Something changes meanwhile, so the resourceVersion the client holds is older than the restarted shard's.
      expect((await http.post(`/clusters/${declining.name}/api/v1/namespaces/default/configmaps`, configMap('meanwhile'))).status).toBe(
        201,
      );
      kcp.startShard('one');
      expect((await http.get(vw('*/apis/apis.kcp.io/v1alpha1/apibindings'))).status).toBe(200);
      const resumed = await http.watch(vw('*/apis/apis.kcp.io/v1alpha1/apibindings'), {
        resourceVersion: list.body.metadata.resourceVersion,
      });
      const [event] = await resumed.until(() => true);
      expect(event).toMatchObject({ type: 'ERROR', object: { code: 410 } });
      resumed.close();
      expect(() => kcp.stopShard('three')).toThrow(/unknown shard/);
    } finally {
      watch.close();
      other.close();
    }
  });
});
