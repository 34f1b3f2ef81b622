/**
 * `/debug/clusters` through a real manager over HTTP: each member with the provider's state and health, the
 * controllers' queue depth and the last reconcile; a member that cannot be reached is listed with why.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { controllerManagedBy } from '../builder/builder.js';
import { newCluster } from '../cluster/cluster.js';
import { silentLogger } from '../log/logger.js';
import { ListProvider, kubeconfigAt } from '../providers/engager/list-provider.test-util.js';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import { noopMetrics } from '../metrics/types.js';
import { FleetLedger, type ClusterReport } from './fleet-ledger.js';
import { newManager } from './manager.js';

let member: ApiServer;
let host: ApiServer;

beforeAll(async () => {
  [host, member] = await Promise.all([startApiServer({ name: 'host' }), startApiServer({ name: 'member' })]);
});
afterAll(async () => {
  await Promise.all([host.close(), member.close()]);
});

function configOf(server: ApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  return kc;
}

async function clusters(address: string): Promise<ClusterReport[]> {
  const res = await fetch(`http://${address}/debug/clusters`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  return ((await res.json()) as { clusters: ClusterReport[] }).clusters;
}

test('/debug/clusters lists each member with state, health, queue depth and last reconcile', async () => {
  const provider = new ListProvider([
    ['member', configOf(member)],
    ['refusing', kubeconfigAt('https://127.0.0.1:1')],
  ]);
  const mgr = newManager(configOf(host), provider, { logger: silentLogger, healthProbeBindAddress: '127.0.0.1:0' });
  controllerManagedBy(mgr)
    .named('configmaps')
    .for({ apiVersion: 'v1', kind: 'ConfigMap' })
    .complete(() => Promise.resolve());
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  const writer = newCluster(configOf(member));
  try {
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('member'), { timeout: 15_000 });
    await writer.apiReader.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'seen' } });
    const address = mgr.addresses().healthProbe!;
    await vi.waitFor(
      async () => {
        const byName = new Map((await clusters(address)).map((c) => [c.name, c]));
        expect(byName.get('member')).toMatchObject({
          engaged: true,
          state: 'engaged',
          failures: 0,
          health: { reachable: true },
          queueDepth: 0,
          lastReconcile: { controller: 'configmaps', outcome: 'success', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
        });
        expect(byName.get('refusing')).toMatchObject({
          engaged: false,
          state: 'unreachable',
          reason: expect.stringMatching(/ECONNREFUSED/),
          queueDepth: 0,
        });
        expect(byName.get('refusing')).not.toHaveProperty('lastReconcile');
      },
      { timeout: 15_000 },
    );
  } finally {
    stop.abort();
    await done;
    await writer.close();
  }
});

test('a disengaged cluster leaves the ledger, and late work for it is not recorded until it is engaged again', () => {
  const ledger = new FleetLedger(noopMetrics);
  ledger.queueDepth('a', 'gone', 3);
  ledger.queueDepth('b', 'gone', 2);
  expect(ledger.report([], undefined)).toEqual([{ name: 'gone', engaged: false, queueDepth: 5 }]);
  ledger.forgetCluster('gone');
  ledger.reconcileDone('a', 'gone', 'success', 0.1); // in flight when it was disengaged
  expect(ledger.report([], undefined)).toEqual([]);
  ledger.clusterEngaged('gone');
  ledger.reconcileDone('a', 'gone', 'error', 0.1);
  expect(ledger.report(['gone'], undefined)).toEqual([
    { name: 'gone', engaged: true, queueDepth: 0, lastReconcile: { controller: 'a', outcome: 'error', at: expect.any(String) } },
  ]);
});

test("the manager's metrics still expose the Prometheus registry they record into", () => {
  const prometheus = new PrometheusMetrics();
  const mgr = newManager(configOf(host), undefined, { logger: silentLogger, metrics: prometheus });
  expect((mgr.metrics as unknown as { registry: unknown }).registry).toBe(prometheus.registry);
});

test('the names of disengaged clusters it remembers are bounded: the oldest is let go', () => {
  const ledger = new FleetLedger(noopMetrics);
  for (let i = 0; i <= 10_000; i++) ledger.forgetCluster(`gone-${i}`);
  ledger.reconcileDone('a', 'gone-0', 'success', 0.1); // no longer remembered: recorded again
  ledger.reconcileDone('a', 'gone-1', 'success', 0.1); // still remembered: dropped
  expect(ledger.report([], undefined).map((r) => r.name)).toEqual(['gone-0']);
});
