import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { BindAddressInvalidError } from '../healthz/errors.js';
import { createLogger, silentLogger, type LogFields } from '../log/logger.js';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware, ProviderContext } from '../multicluster/types.js';
import type { Cluster } from '../cluster/types.js';
import { ClusterSet } from '../providers/clusters/cluster-set.js';
import { RecordingAware, ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import { LeaderElectionLostError } from '../leaderelection/errors.js';
import { LeaseStore } from '../leaderelection/lease-store.test-util.js';
import { whenAborted } from '../signal/wait.js';
import {
  EngageFailedError,
  GracefulShutdownTimeoutError,
  ManagerAlreadyStartedError,
  ManagerConfigError,
  ManagerStoppedError,
  RunnableFailedError,
} from './errors.js';
import { newManager, type MultiClusterManager } from './manager.js';
import type { Runnable } from './types.js';

const config = new KubeConfig();
const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function stopper(): AbortController {
  const ac = new AbortController();
  stops.push(ac);
  return ac;
}

/** A runnable that records its lifetime into `events`. */
class Recorder implements Runnable {
  running = false;
  constructor(
    readonly name: string,
    readonly events: string[],
    readonly needLeaderElection?: boolean,
  ) {}
  async start(signal: AbortSignal): Promise<void> {
    this.running = true;
    this.events.push(`start ${this.name}`);
    await whenAborted(signal);
    this.running = false;
    this.events.push(`stop ${this.name}`);
  }
}

/** A test provider built on ClusterSet, as real providers are. */
class FleetProvider {
  readonly set = new ClusterSet();
  aware: Aware | undefined;
  started = false;
  constructor(private readonly events: string[] = []) {}
  async start(signal: AbortSignal, { aware }: ProviderContext): Promise<void> {
    this.events.push('start provider');
    this.aware = aware;
    this.started = true;
    await whenAborted(signal);
    await this.set.removeAll();
    this.events.push('stop provider');
  }
  get(name: ClusterName): Promise<Cluster> {
    return this.set.get(name);
  }
  indexField: ClusterSet['indexField'] = (k, f, e) => this.set.indexField(k, f, e);
  add(name: string, cluster: Cluster) {
    return this.set.add(name, cluster, this.aware);
  }
}

function manager(provider?: FleetProvider, extra: Parameters<typeof newManager>[2] = {}) {
  const local = new ScriptedCluster('local');
  const mgr = newManager(config, provider, { localCluster: local, logger: silentLogger, ...extra });
  return { mgr, local };
}

describe('manager engagement', () => {
  it('engages every Aware, reports all failures, and keeps the others engaged', async () => {
    const { mgr } = manager();
    const a = new RecordingAware();
    const bad = {
      name: 'picky',
      engage: async () => {
        throw new Error('not this one');
      },
      start: async () => {},
    };
    const c = new RecordingAware();
    mgr.add(Object.assign(a, { start: async () => {} }));
    mgr.add(bad);
    mgr.add(Object.assign(c, { start: async () => {} }));
    const err = await mgr.engage(stopper().signal, 'east', new ScriptedCluster('east')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngageFailedError);
    expect((err as EngageFailedError).failures.map((f) => f.runnable)).toEqual(['picky']);
    expect(a.live()).toEqual(['east']);
    expect(c.live()).toEqual(['east']);
  });

  it('engages an Aware added late with every cluster already engaged, and later ones', async () => {
    const { mgr } = manager();
    const sig = stopper().signal;
    await mgr.engage(sig, 'a', new ScriptedCluster('a'));
    await mgr.engage(sig, 'b', new ScriptedCluster('b'));
    const late = Object.assign(new RecordingAware(), { start: async () => {} });
    mgr.add(late);
    await expect.poll(() => late.live()).toEqual(['a', 'b']);
    await mgr.engage(sig, 'c', new ScriptedCluster('c'));
    expect(late.live()).toEqual(['a', 'b', 'c']);
  });

  it('treats the same instance as a no-op, replaces a new instance, and never lets the old one remove it', async () => {
    const metrics = new PrometheusMetrics();
    const { mgr } = manager(undefined, { metrics });
    const aware = Object.assign(new RecordingAware(), { start: async () => {} });
    mgr.add(aware);
    const first = stopper();
    const one = new ScriptedCluster('x');
    await mgr.engage(first.signal, 'x', one);
    await mgr.engage(first.signal, 'x', one);
    expect(aware.log).toEqual(['engage x']);

    const second = stopper();
    const two = new ScriptedCluster('x');
    metrics.queueAdd('q', 'x');
    await mgr.engage(second.signal, 'x', two);
    expect(aware.engaged.get('x')?.cluster).toBe(two);
    // The first engagement's signal ending late must not drop the second.
    first.abort();
    expect(mgr.engagedClusters()).toEqual(['x']);
    expect(aware.engaged.get('x')?.signal.aborted).toBe(false);
    expect(await metrics.scrape()).toContain('cluster="x"');
    // Disengaging the live one removes it and its metric series.
    second.abort();
    expect(mgr.engagedClusters()).toEqual([]);
    expect(aware.live()).toEqual([]);
    expect(await metrics.scrape()).not.toContain('cluster="x"');
  });

  it('logs every engage and disengage with the cluster name', async () => {
    const records: { msg: string; fields: LogFields }[] = [];
    const logger = createLogger({ level: 'debug', sink: (_l, msg, fields) => records.push({ msg, fields }) });
    const { mgr } = manager(undefined, { logger });
    mgr.add({
      name: 'picky',
      start: async () => {},
      engage: async () => {
        throw new Error('no');
      },
    });
    const ac = stopper();
    await mgr.engage(ac.signal, 'east', new ScriptedCluster('east')).catch(() => {});
    ac.abort();
    const engageLines = records.filter((r) => /engag/.test(r.msg));
    expect(engageLines.map((r) => r.msg)).toEqual(['engaging cluster', 'runnable failed to engage cluster', 'cluster disengaged']);
    for (const r of engageLines) expect(r.fields['cluster']).toBe('east');
  });
});

describe('manager lookups', () => {
  it('answers "" with the local cluster and explains when there is no provider', async () => {
    const { mgr, local } = manager();
    expect(await mgr.getCluster('')).toBe(local);
    expect(await mgr.clusterFromContext({ clusterName: '' })).toBe(local);
    const err = await mgr.getCluster('east').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterNotFoundError);
    expect(String((err as Error).cause)).toContain('no provider');
    expect(mgr.getProvider()).toBeUndefined();
  });

  it('asks the provider for other clusters', async () => {
    const p = new FleetProvider();
    const { mgr } = manager(p);
    const east = new ScriptedCluster('east');
    await p.set.add('east', east);
    expect(await mgr.getCluster('east')).toBe(east);
    await expect(mgr.getCluster('west')).rejects.toBeInstanceOf(ClusterNotFoundError);
    await p.set.removeAll();
  });

  it('indexes the local cluster and the provider clusters, present and future', async () => {
    const p = new FleetProvider();
    const { mgr, local } = manager(p);
    const east = new ScriptedCluster('east');
    await p.set.add('east', east);
    await mgr.getFieldIndexer().indexField({ apiVersion: 'v1', kind: 'Pod' }, 'spec.nodeName', () => []);
    const west = new ScriptedCluster('west');
    await p.set.add('west', west);
    expect([local.indexed, east.indexed, west.indexed]).toEqual([['Pod:spec.nodeName'], ['Pod:spec.nodeName'], ['Pod:spec.nodeName']]);
    await p.set.removeAll();
  });

  it('refuses options that cannot work', () => {
    // An empty kubeconfig names no server.
    expect(() => newManager(config)).toThrow(ManagerConfigError);
    expect(() =>
      newManager(config, undefined, { localCluster: new ScriptedCluster('l'), leaderElection: { enabled: true, name: '' } }),
    ).toThrow(ManagerConfigError);
  });
});

describe('manager lifecycle', () => {
  it('starts the local cluster, then non-leader runnables, then leader runnables and the provider; stops them all', async () => {
    const events: string[] = [];
    const p = new FleetProvider(events);
    const { mgr, local } = manager(p);
    mgr.add(new Recorder('ctrl', events));
    mgr.add(new Recorder('registry', events, false));
    const ac = stopper();
    const running = mgr.start(ac.signal);
    await mgr.elected();
    await expect.poll(() => p.started).toBe(true);
    expect(local.running).toBe(true);
    expect(events).toEqual(['start registry', 'start ctrl', 'start provider']);
    // Clusters the provider engages reach the runnables through the manager.
    const aware = Object.assign(new RecordingAware(), { start: async () => {} });
    mgr.add(aware);
    await p.add('east', new ScriptedCluster('east'));
    expect(aware.live()).toEqual(['east']);
    ac.abort();
    await running;
    expect(local.running).toBe(false);
    expect(events.slice(3).sort()).toEqual(['stop ctrl', 'stop provider', 'stop registry']);
    expect(aware.live()).toEqual([]);
    await expect(mgr.start(stopper().signal)).rejects.toBeInstanceOf(ManagerAlreadyStartedError);
    expect(() => mgr.add(new Recorder('late', events))).toThrow(ManagerStoppedError);
  });

  it('starts a runnable added while running at once', async () => {
    const events: string[] = [];
    const { mgr } = manager();
    const ac = stopper();
    const running = mgr.start(ac.signal);
    await mgr.elected();
    const late = new Recorder('late', events);
    mgr.add(late);
    await expect.poll(() => late.running).toBe(true);
    ac.abort();
    await running;
    expect(late.running).toBe(false);
  });

  it('stops everything and rejects with the error when a runnable fails', async () => {
    const events: string[] = [];
    const { mgr, local } = manager();
    const healthy = new Recorder('healthy', events);
    mgr.add(healthy);
    mgr.add({
      name: 'broken',
      start: async () => {
        throw new Error('lost my marbles');
      },
    });
    const err = await mgr.start(stopper().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunnableFailedError);
    expect((err as RunnableFailedError).runnable).toBe('broken');
    expect(healthy.running).toBe(false);
    expect(local.running).toBe(false);
  });

  it('gives up on runnables that ignore shutdown after the grace period', async () => {
    const { mgr } = manager(undefined, { gracefulShutdownTimeoutMs: 100 });
    mgr.add({ name: 'stubborn', start: () => new Promise<void>(() => {}) });
    const ac = stopper();
    const running = mgr.start(ac.signal);
    await mgr.elected();
    ac.abort();
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GracefulShutdownTimeoutError);
    expect((err as GracefulShutdownTimeoutError).stillRunning).toEqual(['stubborn']);
  });

  it('is ready only after the local cache synced and started runnables are ready', async () => {
    const local = new ScriptedCluster('local', { synced: false });
    let runnableReady!: () => void;
    const mgr: MultiClusterManager = newManager(config, undefined, {
      localCluster: local,
      logger: silentLogger,
      healthProbeBindAddress: '127.0.0.1:0',
    });
    mgr.add({
      name: 'ctrl',
      start: whenAborted,
      waitForReady: () =>
        new Promise<boolean>((resolve) => {
          runnableReady = () => resolve(true);
        }),
    });
    const ac = stopper();
    const running = mgr.start(ac.signal);
    await expect.poll(() => mgr.addresses().healthProbe).toBeDefined();
    const url = `http://${mgr.addresses().healthProbe}`;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    let res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('[-]local-cache-sync failed');
    local.markSynced();
    await mgr.elected();
    res = await fetch(`${url}/readyz`);
    expect(await res.text()).toContain('not ready yet: ctrl');
    runnableReady();
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status).toBe(200);
    ac.abort();
    await running;
    await expect(fetch(`${url}/readyz`)).rejects.toThrow();
  });

  it('serves metrics and probes from one server when both addresses are the same', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const { mgr } = manager(undefined, { metricsBindAddress: `127.0.0.1:${port}`, healthProbeBindAddress: `127.0.0.1:${port}` });
    const ac = stopper();
    const running = mgr.start(ac.signal);
    await mgr.elected();
    expect(mgr.addresses()).toEqual({ metrics: `127.0.0.1:${port}`, healthProbe: `127.0.0.1:${port}` });
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    ac.abort();
    await running;
  });

  it('refuses a malformed bind address when created', () => {
    expect(() => manager(undefined, { metricsBindAddress: 'localhost' })).toThrow(BindAddressInvalidError);
    expect(() => manager(undefined, { healthProbeBindAddress: ':99999' })).toThrow(BindAddressInvalidError);
  });

  it('serves metrics on its own address and frees it on shutdown', async () => {
    const metrics = new PrometheusMetrics();
    const { mgr } = manager(undefined, { metrics, metricsBindAddress: '127.0.0.1:0' });
    const ac = stopper();
    const running = mgr.start(ac.signal);
    await mgr.elected();
    metrics.reconcileDone('c', 'east', 'success', 0.1);
    const res = await fetch(`http://${mgr.addresses().metrics}/metrics`);
    expect(await res.text()).toContain('mcr_reconcile_total{controller="c",cluster="east",result="success"} 1');
    expect(mgr.addresses().healthProbe).toBeUndefined();
    ac.abort();
    await running;
  });

  it("stops with the provider's error when the provider fails", async () => {
    const failing = Object.assign(new FleetProvider(), {
      start: async () => {
        throw new Error('discovery broke');
      },
    });
    const { mgr, local } = manager(failing);
    const err = await mgr.start(stopper().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunnableFailedError);
    expect((err as RunnableFailedError).runnable).toBe('provider');
    expect(local.running).toBe(false);
  });
});

describe('manager leader election', () => {
  const le = { enabled: true, namespace: 'kube-system', name: 'ctrl', leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

  it('runs leader-only work only once elected, other runnables at once, and stops when leadership is lost', async () => {
    const store = new LeaseStore();
    // Another replica holds the Lease and keeps renewing it.
    const other = newManager(config, undefined, {
      localCluster: new ScriptedCluster('o', { client: store.client().asClient() }),
      logger: silentLogger,
      leaderElection: { ...le, id: 'other' },
    });
    const otherStop = stopper();
    const otherRun = other.start(otherStop.signal);
    await other.elected();

    const events: string[] = [];
    const view = store.client();
    const p = new FleetProvider(events);
    const mgr = newManager(config, p, {
      localCluster: new ScriptedCluster('l', { client: view.asClient() }),
      logger: silentLogger,
      leaderElection: { ...le, id: 'me' },
    });
    const ctrl = new Recorder('ctrl', events);
    const registry = new Recorder('registry', events, false);
    mgr.add(ctrl);
    mgr.add(registry);
    const running = mgr.start(stopper().signal);
    await expect.poll(() => registry.running).toBe(true);
    // Observe beyond a lease period: the other replica renews, so leader-only work stays off; the provider runs on
    // every replica, so a standby knows the fleet.
    await new Promise((r) => setTimeout(r, 1200));
    expect(events).toEqual(['start registry', 'start provider']);

    otherStop.abort();
    await otherRun;
    await mgr.elected();
    await expect.poll(() => events).toEqual(['start registry', 'start provider', 'start ctrl']);

    // The API server becomes unreachable: this replica must step down and stop everything.
    view.broken = true;
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaderElectionLostError);
    expect(ctrl.running).toBe(false);
    expect(registry.running).toBe(false);
  });
});
