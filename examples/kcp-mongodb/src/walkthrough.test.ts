/**
 * The whole walk-through against a fake kcp (two shards) and a plain downstream API server: publish the API, bind it
 * in two consumer workspaces, create same-named MongoDB objects in both, and watch them projected down, reported
 * Running by the stand-in operator, synced back, updated, recorded as Events, and cleaned up through the finalizer
 * without a single failed reconcile.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@multicluster-runtime/core';
import type { LogFields } from '@multicluster-runtime/core/log';
import { isNotFound, newManager, silentLogger } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import type { KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { ApiExportProvider } from '@multicluster-runtime/provider-kcp-apiexport';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { EXPORT_NAME, MONGODB, type MongoDBCommunity } from './api.js';
import { startFakeFleet, type FakeFleet } from './fake-fleet.js';
import { FINALIZER, ORIGIN_PREFIX, downstreamKey, setupMongoSync } from './mongodb-sync.js';
import { setupStandInOperator } from './stand-in-operator.js';

function clientFor(kubeconfig: string): { client: ApiClient; transport: Transport } {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const transport = Transport.forConfig(kc);
  return { client: new ApiClient(transport, new DiscoveryRESTMapper(transport)), transport };
}

/** A logger that keeps every warning and error, to prove the walk-through never fails a reconcile. */
function recordingLogger(records: { msg: string; fields: LogFields }[], fields: LogFields = {}): Logger {
  const keep = (msg: string, more?: LogFields) => void records.push({ msg, fields: { ...fields, ...more } });
  return {
    debug: () => {},
    info: () => {},
    warn: keep,
    error: (msg, err, more) => keep(msg, { ...more, error: String(err) }),
    with: (more) => recordingLogger(records, { ...fields, ...more }),
  };
}

interface EventObject {
  reason: string;
  note: string;
  type: string;
  regarding: { name: string; kind: string };
  reportingController: string;
}

describe('kcp MongoDB walk-through', () => {
  let fleet: FakeFleet;
  let teamA: KcpWorkspace;
  let teamB: KcpWorkspace;
  const transports: Transport[] = [];
  const stop = new AbortController();
  const running: Promise<void>[] = [];
  const problems: { msg: string; fields: LogFields }[] = [];
  let down: ApiClient;
  let consumerA: ApiClient;
  let consumerB: ApiClient;
  const connect = (kubeconfig: string): ApiClient => {
    const c = clientFor(kubeconfig);
    transports.push(c.transport);
    return c.client;
  };

  beforeAll(async () => {
    fleet = await startFakeFleet();
    [teamA, teamB] = fleet.consumers;
    down = connect(fleet.kubeconfig());
    consumerA = connect(fleet.kubeconfig(teamA));
    consumerB = connect(fleet.kubeconfig(teamB));
    const kubeConfig = (text: string) => {
      const kc = new KubeConfig();
      kc.loadFromString(text);
      return kc;
    };

    // The stand-in operator runs on the downstream cluster; the controller spans kcp and downstream.
    const operator = newManager(kubeConfig(fleet.kubeconfig()), undefined, { logger: silentLogger });
    setupStandInOperator(operator);
    const provider = new ApiExportProvider({
      endpointSliceName: EXPORT_NAME,
      exportConfig: kubeConfig(fleet.kubeconfig(fleet.exportWorkspace)),
    });
    const mgr = newManager(kubeConfig(fleet.kubeconfig()), provider, { logger: recordingLogger(problems) });
    setupMongoSync(mgr, { downstreamNamespace: 'default' });
    running.push(operator.start(stop.signal), mgr.start(stop.signal));
    await vi.waitFor(() => expect(provider.names()).toEqual([teamA.name, teamB.name].sort()), { timeout: 10_000, interval: 20 });
  });

  afterAll(async () => {
    stop.abort();
    await Promise.allSettled(running);
    await Promise.all(transports.map((t) => t.close()));
    await fleet?.close();
  });

  const key = { namespace: 'default', name: 'my-database' };
  const downKey = (ws: KcpWorkspace) => downstreamKey({ clusterName: ws.name, ...key }, { downstreamNamespace: 'default' });
  const eventsIn = async (client: ApiClient): Promise<EventObject[]> =>
    (await client.list<EventObject & { metadata: object }>({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: 'default' }))
      .items;
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
    expect(projectedA.metadata.annotations?.[`${ORIGIN_PREFIX}origin-cluster`]).toBe(teamA.name);
    expect((await down.get<MongoDBCommunity>(MONGODB, downKey(teamB))).spec?.version).toBe('7.0.2');

    await expect
      .poll(async () => (await consumerA.get<MongoDBCommunity>(MONGODB, key)).status, { timeout: 10_000 })
      .toEqual({ phase: 'Running', version: '6.0.5' });
    await expect
      .poll(async () => (await consumerB.get<MongoDBCommunity>(MONGODB, key)).status, { timeout: 10_000 })
      .toEqual({ phase: 'Running', version: '7.0.2' });
    expect((await consumerA.get(MONGODB, key)).metadata.finalizers).toEqual([FINALIZER]);
  });

  test('what the controller did is recorded as Events in the workspace and on the downstream cluster', async () => {
    await expect
      .poll(async () => (await eventsIn(consumerA)).map((e) => [e.reportingController, e.reason, e.regarding.name]), { timeout: 10_000 })
      .toContainEqual(['mongodb-sync', 'Projected', 'my-database']);
    const downName = downKey(teamA).name;
    await expect
      .poll(async () => (await eventsIn(down)).map((e) => [e.reason, e.regarding.name, e.note]), { timeout: 10_000 })
      .toContainEqual(['Projected', downName, `created for ${teamA.name}:default/my-database`]);
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

  test('the deletion was recorded, and no reconcile failed along the way (a stale read meeting NotFound is done)', async () => {
    await expect.poll(async () => (await eventsIn(consumerA)).map((e) => e.reason), { timeout: 10_000 }).toContain('DownstreamDeleted');
    expect(problems).toEqual([]);
  });
});
