/**
 * The whole walk-through against a fake kcp (two shards) and a plain downstream API server: publish the API, bind it
 * in two consumer workspaces, create same-named MongoDB objects in both, and watch them projected down, reported
 * Running by the stand-in operator, synced back, updated, and cleaned up through the finalizer.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { isNotFound, newManager, silentLogger } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import type { ApiServer } from '@multicluster-runtime/envtest';
import type { KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startApiServer } from '@multicluster-runtime/envtest';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { ApiExportProvider } from '@multicluster-runtime/provider-kcp-apiexport';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { EXPORT_NAME, MONGODB, type MongoDBCommunity, mongoDownstreamCrd, mongoResourceSchema } from './api.js';
import { ORIGIN_CLUSTER, downstreamName } from './downstream-name.js';
import { FINALIZER, setupMongoSync } from './mongodb-sync.js';
import { setupStandInOperator } from './stand-in-operator.js';

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

function clientFor(kubeconfig: string): { client: ApiClient; transport: Transport } {
  const transport = Transport.forConfig(kubeConfig(kubeconfig));
  return { client: new ApiClient(transport, new DiscoveryRESTMapper(transport)), transport };
}

describe('kcp MongoDB walk-through', () => {
  let kcp: KcpServer;
  let downstream: ApiServer;
  let mongoWs: KcpWorkspace;
  let teamA: KcpWorkspace;
  let teamB: KcpWorkspace;
  const transports: Transport[] = [];
  const stop = new AbortController();
  const running: Promise<void>[] = [];
  let down: ApiClient;
  let consumerA: ApiClient;
  let consumerB: ApiClient;

  beforeAll(async () => {
    kcp = await startKcpServer({ shards: ['one', 'two'] });
    downstream = await startApiServer();
    const d = clientFor(downstream.kubeconfig());
    down = d.client;
    transports.push(d.transport);
    await down.create(mongoDownstreamCrd);
    await vi.waitFor(() => down.list(MONGODB), { timeout: 5000, interval: 20 });

    // The provider publishes the API (seed: sample/mongo-api.yaml, at root:mongodb).
    mongoWs = await kcp.createWorkspace('root:mongodb');
    const { apiVersion: _a, kind: _k, ...schema } = mongoResourceSchema;
    await kcp.createExport(mongoWs, { name: EXPORT_NAME, schemas: [schema] });

    // Two consumers on different shards bind it (v1alpha2, as the seed's consumers).
    teamA = await kcp.createWorkspace('root:team-a', { shard: 'one' });
    teamB = await kcp.createWorkspace('root:team-b', { shard: 'two' });
    await kcp.bind(teamA, { exportPath: 'root:mongodb', exportName: EXPORT_NAME });
    await kcp.bind(teamB, { exportPath: 'root:mongodb', exportName: EXPORT_NAME });
    for (const [ws, set] of [
      [teamA, (c: ApiClient) => (consumerA = c)],
      [teamB, (c: ApiClient) => (consumerB = c)],
    ] as const) {
      const c = clientFor(kcp.kubeconfig(ws));
      transports.push(c.transport);
      set(c.client);
    }

    // The stand-in operator runs on the downstream cluster; the controller spans kcp and downstream.
    const operator = newManager(kubeConfig(downstream.kubeconfig()), undefined, { logger: silentLogger });
    setupStandInOperator(operator);
    const provider = new ApiExportProvider({
      endpointSliceName: EXPORT_NAME,
      exportConfig: kubeConfig(kcp.kubeconfig(mongoWs)),
    });
    const mgr = newManager(kubeConfig(downstream.kubeconfig()), provider, { logger: silentLogger });
    setupMongoSync(mgr, { downstreamNamespace: 'default' });
    running.push(operator.start(stop.signal), mgr.start(stop.signal));
    await vi.waitFor(() => expect(provider.names()).toEqual([teamA.name, teamB.name].sort()), { timeout: 10_000, interval: 20 });
  });

  afterAll(async () => {
    stop.abort();
    await Promise.allSettled(running);
    await Promise.all(transports.map((t) => t.close()));
    await kcp?.close();
    await downstream?.close();
  });

  const key = { namespace: 'default', name: 'my-database' };
  const downKey = (ws: KcpWorkspace) => ({
    namespace: 'default',
    name: downstreamName({ cluster: ws.name, namespace: 'default', name: 'my-database' }),
  });
  const mongo = (version: string): MongoDBCommunity => ({
    ...MONGODB,
    metadata: { ...key },
    spec: { members: 3, type: 'ReplicaSet', version },
  });

  test('same-named objects in two workspaces become two downstream objects, and status flows back', async () => {
    await consumerA.create(mongo('6.0.5'));
    await consumerB.create(mongo('7.0.2'));

    await expect
      .poll(async () => (await down.list<MongoDBCommunity>(MONGODB, { namespace: 'default' })).items.length, { timeout: 10_000 })
      .toBe(2);
    const projectedA = await down.get<MongoDBCommunity>(MONGODB, downKey(teamA));
    expect(projectedA.spec).toEqual({ members: 3, type: 'ReplicaSet', version: '6.0.5' });
    expect(projectedA.metadata.annotations?.[ORIGIN_CLUSTER]).toBe(teamA.name);
    expect((await down.get<MongoDBCommunity>(MONGODB, downKey(teamB))).spec?.version).toBe('7.0.2');

    await expect
      .poll(async () => (await consumerA.get<MongoDBCommunity>(MONGODB, key)).status, { timeout: 10_000 })
      .toEqual({ phase: 'Running', version: '6.0.5' });
    await expect
      .poll(async () => (await consumerB.get<MongoDBCommunity>(MONGODB, key)).status, { timeout: 10_000 })
      .toEqual({ phase: 'Running', version: '7.0.2' });
    expect((await consumerA.get(MONGODB, key)).metadata.finalizers).toEqual([FINALIZER]);
  });

  test('a spec change in a workspace is projected down and its new status comes back', async () => {
    const current = await consumerA.get<MongoDBCommunity>(MONGODB, key);
    await consumerA.update({ ...current, spec: { ...current.spec, version: '6.0.6' } });
    await expect
      .poll(async () => (await down.get<MongoDBCommunity>(MONGODB, downKey(teamA))).spec?.version, { timeout: 10_000 })
      .toBe('6.0.6');
    await expect.poll(async () => (await consumerA.get<MongoDBCommunity>(MONGODB, key)).status?.version, { timeout: 10_000 }).toBe('6.0.6');
    expect((await down.get<MongoDBCommunity>(MONGODB, downKey(teamB))).spec?.version).toBe('7.0.2');
  });

  test("deleting a workspace's object deletes its downstream object first, then releases the finalizer", async () => {
    await consumerA.delete(MONGODB, key);
    await expect
      .poll(
        async () =>
          down.get(MONGODB, downKey(teamA)).then(
            () => 'present',
            (e) => (isNotFound(e) ? 'gone' : String(e)),
          ),
        { timeout: 10_000 },
      )
      .toBe('gone');
    await expect
      .poll(
        async () =>
          consumerA.get(MONGODB, key).then(
            () => 'present',
            (e) => (isNotFound(e) ? 'gone' : String(e)),
          ),
        { timeout: 10_000 },
      )
      .toBe('gone');
    expect((await down.get<MongoDBCommunity>(MONGODB, downKey(teamB))).status?.phase).toBe('Running');
    expect((await consumerB.get<MongoDBCommunity>(MONGODB, key)).metadata.finalizers).toEqual([FINALIZER]);
  });
});
