/**
 * The manager end to end against in-memory API servers (real HTTP, real watches): the upstream docs' uniform and
 * multi-cluster-aware reconcilers on one cluster and on a fleet, clusters coming and going, late controllers, an
 * unreachable member, leader election between two managers, per-cluster metrics and readiness.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { controllerManagedBy } from '../builder/builder.js';
import { isNotFound } from '../client/errors.js';
import { newCluster } from '../cluster/cluster.js';
import { silentLogger } from '../log/logger.js';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import type { KubeObject } from '../object/types.js';
import { kubeconfigFor } from '../providers/clusters/scripted-cluster.test-util.js';
import { SingleClusterProvider } from '../providers/single.js';
import {
  ReconcileLog,
  TestFleetProvider,
  configMap,
  configMapKind,
  copyName,
  syncReconciler,
  uniformReconciler,
} from './fleet.test-util.js';
import { newManager, type MultiClusterManager } from './manager.js';
import type { ManagerOptions } from './options.js';

let host: ApiServer;
let members: ApiServer[] = [];
const stops: AbortController[] = [];
const runs: Promise<unknown>[] = [];

beforeAll(async () => {
  host = await startApiServer();
  members = await Promise.all([startApiServer(), startApiServer(), startApiServer()]);
});
afterAll(async () => {
  await Promise.all([host, ...members].map((s) => s.close()));
});
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.allSettled(runs.splice(0));
});

function kubeconfigOf(server: ApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  return kc;
}

/** Direct access to a server for the test's own reads and writes. */
function clientOf(server: ApiServer) {
  return newCluster(kubeconfigOf(server), { logger: silentLogger });
}

let seq = 0;
function unique(prefix: string): string {
  return `${prefix}-${++seq}-${Date.now().toString(36)}`;
}

function startManager(provider: TestFleetProvider | undefined, options: ManagerOptions = {}): MultiClusterManager {
  const mgr = newManager(kubeconfigOf(host), provider, {
    logger: silentLogger,
    gracefulShutdownTimeoutMs: 10_000,
    ...options,
  });
  return mgr;
}

function run(mgr: MultiClusterManager): AbortController {
  const ac = new AbortController();
  stops.push(ac);
  runs.push(mgr.start(ac.signal));
  return ac;
}

async function labelOf(server: ApiServer, name: string, label: string): Promise<string | undefined> {
  const c = clientOf(server);
  try {
    const cm = await c.apiReader.get<KubeObject>(configMapKind, { namespace: 'default', name });
    return cm.metadata.labels?.[label];
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  } finally {
    await c.close();
  }
}

async function create(server: ApiServer, obj: KubeObject): Promise<void> {
  const c = clientOf(server);
  try {
    await c.client.create(obj);
  } finally {
    await c.close();
  }
}

async function exists(server: ApiServer, name: string): Promise<boolean> {
  const c = clientOf(server);
  try {
    await c.apiReader.get(configMapKind, { namespace: 'default', name });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  } finally {
    await c.close();
  }
}

const poll = { timeout: 10_000, interval: 50 };

describe('uniform and multi-cluster-aware reconcilers', () => {
  it('run unchanged on one cluster (no provider)', async () => {
    const mgr = startManager(undefined);
    const log = new ReconcileLog();
    controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, log));
    controllerManagedBy(mgr)
      .named('sync')
      .for(configMapKind)
      .complete(syncReconciler(mgr, '', new ReconcileLog()));
    run(mgr);
    const plain = unique('plain');
    const synced = unique('synced');
    await create(host, configMap(plain));
    await create(host, configMap(synced, { sync: 'true' }, { k: 'v' }));
    await expect.poll(() => labelOf(host, plain, 'reconciled'), poll).toBe('true');
    await expect.poll(() => labelOf(host, synced, 'reconciled'), poll).toBe('true');
    await expect.poll(() => exists(host, copyName('', synced)), poll).toBe(true);
  });

  it('run unchanged on a fleet, following clusters that join and leave', async () => {
    const [a, b, c] = members as [ApiServer, ApiServer, ApiServer];
    const provider = new TestFleetProvider();
    const mgr = startManager(provider);
    const log = new ReconcileLog();
    controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, log));
    controllerManagedBy(mgr)
      .named('sync')
      .for(configMapKind)
      .complete(syncReconciler(mgr, 'b', new ReconcileLog()));
    run(mgr);
    const before = unique('before');
    await create(a, configMap(before, { sync: 'true' }));
    await provider.add('a', kubeconfigOf(a));
    await provider.add('b', kubeconfigOf(b));
    // Objects present before engagement and created after are both reconciled, in every live cluster.
    const inB = unique('in-b');
    await create(b, configMap(inB));
    await expect.poll(() => labelOf(a, before, 'reconciled'), poll).toBe('true');
    await expect.poll(() => labelOf(b, inB, 'reconciled'), poll).toBe('true');
    await expect.poll(() => exists(b, copyName('a', before)), poll).toBe(true);

    // A cluster joins while running.
    const inC = unique('in-c');
    await create(c, configMap(inC));
    await provider.add('c', kubeconfigOf(c));
    await expect.poll(() => labelOf(c, inC, 'reconciled'), poll).toBe('true');

    // A cluster leaves: nothing there is reconciled any more, and nothing keeps retrying it.
    await provider.remove('a');
    const afterRemoval = unique('after-removal');
    await create(a, configMap(afterRemoval));
    const witness = unique('witness');
    await create(c, configMap(witness));
    await expect.poll(() => labelOf(c, witness, 'reconciled'), poll).toBe('true');
    const reconcilesOfA = log.total('a');
    await expect.poll(() => labelOf(b, inB, 'reconciled'), poll).toBe('true');
    // Give a hot loop ample opportunity (dozens of retry periods) and check no request for "a" ran.
    await new Promise((r) => setTimeout(r, 500));
    expect(log.total('a')).toBe(reconcilesOfA);
    expect(await labelOf(a, afterRemoval, 'reconciled')).toBeUndefined();
    expect(mgr.engagedClusters()).toEqual(['b', 'c']);
  });

  it('run on a member cluster through the single-cluster provider', async () => {
    const [a] = members as [ApiServer];
    const member = newCluster(kubeconfigOf(a), { name: 'member', logger: silentLogger });
    const mgr = newManager(kubeconfigOf(host), new SingleClusterProvider('member', member), { logger: silentLogger });
    const log = new ReconcileLog();
    controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, log));
    run(mgr);
    const name = unique('single');
    await create(a, configMap(name));
    await expect.poll(() => labelOf(a, name, 'reconciled'), poll).toBe('true');
    expect(log.count('member', name)).toBeGreaterThan(0);
    expect(log.total('')).toBe(0);
    expect(await mgr.getCluster('member')).toBe(member);
  });

  it('indexes fields on the local cluster and on provider clusters engaged before and after', async () => {
    const [a, b] = members as [ApiServer, ApiServer];
    const provider = new TestFleetProvider();
    const mgr = startManager(provider);
    run(mgr);
    const tag = unique('team');
    for (const server of [host, a, b]) await create(server, configMap(unique('idx'), {}, { team: tag }));
    await provider.add('a', kubeconfigOf(a));
    await mgr.getFieldIndexer().indexField(configMapKind, 'data.team', (o) => {
      const team = (o['data'] as Record<string, string> | undefined)?.['team'];
      return team ? [team] : [];
    });
    await provider.add('b', kubeconfigOf(b));
    for (const name of ['', 'a', 'b']) {
      const cache = (await mgr.getCluster(name)).cache;
      await cache.getInformer(configMapKind);
      await expect.poll(async () => (await cache.list(configMapKind, { fieldSelector: { 'data.team': tag } })).items.length, poll).toBe(1);
    }
  });

  it('engages a controller added late with the clusters already engaged', async () => {
    const [a] = members as [ApiServer];
    const provider = new TestFleetProvider();
    const mgr = startManager(provider);
    run(mgr);
    await provider.add('a', kubeconfigOf(a));
    const name = unique('late');
    await create(a, configMap(name));
    const log = new ReconcileLog();
    controllerManagedBy(mgr).named('late').for(configMapKind).complete(uniformReconciler(mgr, log));
    await expect.poll(() => log.count('a', name), poll).toBeGreaterThan(0);
    await expect.poll(() => labelOf(a, name, 'reconciled'), poll).toBe('true');
  });

  it('keeps reconciling healthy clusters while one member is unreachable', async () => {
    const [a] = members as [ApiServer];
    const closedPort = await freePort();
    const provider = new TestFleetProvider();
    const mgr = startManager(provider);
    const log = new ReconcileLog();
    controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, log));
    run(mgr);
    // Not awaited: this cluster never becomes reachable.
    const dead = provider.add('dead', kubeconfigFor(`https://127.0.0.1:${closedPort}`)).catch((e: unknown) => e);
    await provider.add('a', kubeconfigOf(a));
    const name = unique('healthy');
    const started = performance.now();
    await create(a, configMap(name));
    await expect.poll(() => labelOf(a, name, 'reconciled'), poll).toBe('true');
    // Generous bound: far below the dead cluster's cache-sync timeout (10 s) it must not have waited for.
    expect(performance.now() - started).toBeLessThan(5_000);
    stops.forEach((s) => s.abort());
    await dead;
  });
});

describe('flapping clusters', () => {
  it('1,000 engage/disengage cycles leave no watches, connections or timers behind', { timeout: 120_000 }, async () => {
    const [a] = members as [ApiServer];
    const provider = new TestFleetProvider();
    const mgr = startManager(provider);
    controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, new ReconcileLog()));
    run(mgr);
    await mgr.elected();
    const baseline = { ...a.stats(), timers: activeResources('Timeout'), sockets: activeResources('TCPSocketWrap') };
    const kc = kubeconfigOf(a);
    for (let i = 0; i < 1000; i++) {
      await provider.add('flap', kc);
      await provider.remove('flap');
    }
    expect(mgr.engagedClusters()).toEqual([]);
    await expect.poll(() => a.stats().openWatches, poll).toBe(baseline.openWatches);
    // Both ends of every connection live in this process, so closed connections show as fewer socket handles.
    await expect.poll(() => activeResources('TCPSocketWrap'), poll).toBeLessThanOrEqual(baseline.sockets);
    await expect.poll(() => activeResources('Timeout'), poll).toBeLessThanOrEqual(baseline.timers + 2);
  });
});

describe('fairness across clusters', () => {
  it('a quiet cluster is reconciled within 2 s while a flooded cluster has 10,000 requests queued', { timeout: 90_000 }, async () => {
    const flooded = await startApiServer();
    try {
      const seeder = clientOf(flooded);
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < 10_000) await seeder.client.create(configMap(`flood-${next++}`));
        }),
      );
      await seeder.close();
      const [quiet] = members as [ApiServer];
      const quietName = unique('quiet');
      await create(quiet, configMap(quietName));

      const provider = new TestFleetProvider();
      const mgr = startManager(provider);
      const log = new ReconcileLog();
      controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, log));
      run(mgr);
      await provider.add('flooded', kubeconfigOf(flooded));
      // The flooded cluster's initial list has queued its 10,000 objects by now.
      await expect.poll(() => log.total('flooded'), poll).toBeGreaterThan(0);
      const engagedAt = performance.now();
      await provider.add('quiet', kubeconfigOf(quiet));
      await expect.poll(() => log.count('quiet', quietName), { timeout: 2_000, interval: 10 }).toBeGreaterThan(0);
      const waited = performance.now() - engagedAt;
      // The backlog was real: most of the flood was still waiting when the quiet cluster got its turn.
      expect(log.total('flooded')).toBeLessThan(9_000);
      expect(waited).toBeLessThan(2_000);
      await provider.remove('flooded');
    } finally {
      await flooded.close();
    }
  });
});

describe('leader election', () => {
  it('lets exactly one of two managers reconcile, and hands over when the leader stops', async () => {
    const lease = unique('lease');
    const le = { enabled: true, namespace: 'default', name: lease, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 };
    const logs = [new ReconcileLog(), new ReconcileLog()] as const;
    const mgrs = [0, 1].map((i) => {
      const m = startManager(undefined, { leaderElection: { ...le, id: `replica-${i}` } });
      controllerManagedBy(m).named('uniform').for(configMapKind).complete(uniformReconciler(m, logs[i]!));
      return m;
    });
    const ctl = mgrs.map((m) => run(m));
    const leader = await Promise.race(mgrs.map((m, i) => m.elected().then(() => i)));
    const follower = 1 - leader;
    const first = unique('first');
    await create(host, configMap(first));
    await expect.poll(() => labelOf(host, first, 'reconciled'), poll).toBe('true');
    expect(logs[leader]!.count('', first)).toBeGreaterThan(0);
    expect(logs[follower]!.count('', first)).toBe(0);

    const stoppedAt = performance.now();
    ctl[leader]!.abort();
    await mgrs[follower]!.elected();
    // Released on shutdown, so well within one lease period.
    expect(performance.now() - stoppedAt).toBeLessThan(le.leaseDurationMs);
    const second = unique('second');
    await create(host, configMap(second));
    await expect.poll(() => labelOf(host, second, 'reconciled'), poll).toBe('true');
    expect(logs[follower]!.count('', second)).toBeGreaterThan(0);
  });
});

describe('metrics and probes', () => {
  it('shows per-cluster series on /metrics and drops them after disengage', async () => {
    const [a, b] = members as [ApiServer, ApiServer];
    const provider = new TestFleetProvider();
    const metrics = new PrometheusMetrics();
    const mgr = startManager(provider, { metrics, metricsBindAddress: '127.0.0.1:0' });
    controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, new ReconcileLog()));
    run(mgr);
    await provider.add('a', kubeconfigOf(a));
    await provider.add('b', kubeconfigOf(b));
    const inA = unique('m');
    const inB = unique('m');
    await create(a, configMap(inA));
    await create(b, configMap(inB));
    const scrape = async () => (await fetch(`http://${mgr.addresses().metrics}/metrics`)).text();
    await expect.poll(scrape, poll).toMatch(/mcr_reconcile_total\{controller="uniform",cluster="a",result="success"\}/);
    expect(await scrape()).toMatch(/mcr_reconcile_total\{controller="uniform",cluster="b",result="success"\}/);
    await provider.remove('a');
    await expect.poll(scrape, poll).not.toContain('cluster="a"');
    expect(await scrape()).toContain('cluster="b"');
  });

  it('turns /readyz 200 only once the caches have synced', async () => {
    const slow = await startApiServer();
    try {
      slow.faults.setLatency(400);
      const mgr = newManager(kubeconfigOf(slow), undefined, {
        logger: silentLogger,
        healthProbeBindAddress: '127.0.0.1:0',
      });
      controllerManagedBy(mgr).named('uniform').for(configMapKind).complete(uniformReconciler(mgr, new ReconcileLog()));
      const ac = run(mgr);
      await expect.poll(() => mgr.addresses().healthProbe, poll).toBeDefined();
      const url = `http://${mgr.addresses().healthProbe}/readyz`;
      const statuses: number[] = [];
      await expect
        .poll(async () => {
          const s = (await fetch(url)).status;
          statuses.push(s);
          return s;
        }, poll)
        .toBe(200);
      expect(statuses[0]).toBe(500);
      ac.abort();
      await Promise.allSettled(runs.splice(0));
    } finally {
      await slow.close();
    }
  });
});

function activeResources(kind: string): number {
  return process.getActiveResourcesInfo().filter((r) => r === kind).length;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
