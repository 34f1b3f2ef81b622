/**
 * Sharding end to end: several managers (replicas) against one envtest host that holds the peer and fence Leases,
 * and a fleet of member envtest servers that every replica's provider knows. Checks that each cluster is owned by
 * exactly one replica, that adding and stopping replicas rebalances within the stated bound, that no two replicas
 * ever reconcile one cluster at once (sampled from the engagements and fences, and checked on the reconcile log's
 * timestamps), that non-owners run no informers for a cluster, that a cluster moves only after the old owner's
 * reconciles of it have returned (also one that ignores its signal), and that getCluster refuses non-owned clusters.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { controllerManagedBy } from '../builder/builder.js';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import { leaseKind, type Lease } from '../leaderelection/lease-elector.js';
import { silentLogger } from '../log/logger.js';
import { configMap, configMapKind, TestFleetProvider } from '../manager/fleet.test-util.js';
import { newManager, type MultiClusterManager } from '../manager/manager.js';
import type { ManagerOptions } from '../manager/options.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import { ClusterNotOwnedError } from './errors.js';
import { fenceLeaseName } from './fence.js';
import type { ShardingTimings } from './options.js';
import { ownerOf, type Peer } from './rendezvous.js';
import { churn, overlappingReconciles, watchForDoubleOwnership, type ReconcileInterval } from './sharding.test-util.js';

const group = 'shard-it';
/** Fast timings; the production defaults are about ten times slower. */
const timings: ShardingTimings = {
  peerLeaseDurationMs: 2000,
  peerRenewIntervalMs: 200,
  fenceLeaseDurationMs: 2000,
  fenceRenewDeadlineMs: 1500,
  fenceRetryPeriodMs: 200,
  recomputeIntervalMs: 1000,
};
/** The rebalancing bound for these timings when a replica joins or stops cleanly (README: peerRenew + 2 × fenceRetry + engage). */
const rebalanceBoundMs = 3000;

let host: ApiServer;
let members: ApiServer[] = [];
const names: string[] = [];
/** The test's own clients: one per member, and one for the host's Leases. */
const tools: KubeCluster[] = [];
let hostTool: KubeCluster;

type Interval = ReconcileInterval;
const reconciles: Interval[] = [];

/** When set, that replica's reconciles of that cluster ignore their signal and block until `open` is called. */
let stubborn: { replica: string; cluster: string; gate: Promise<void>; open: () => void } | undefined;

function kubeconfigOf(server: ApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  return kc;
}

interface Replica {
  id: string;
  weight: number;
  mgr: MultiClusterManager;
  provider: TestFleetProvider;
  stop: AbortController;
  done: Promise<void>;
}
const replicas: Replica[] = [];
/** Replicas whose manager ended before their test stopped it (e.g. it lost leadership): the test fails on each. */
const exits: string[] = [];
afterEach(() => {
  expect(exits.splice(0)).toEqual([]);
});

async function startReplica(id: string, weight = 1, extra: Partial<ManagerOptions> = {}): Promise<Replica> {
  const provider = new TestFleetProvider();
  const mgr = newManager(kubeconfigOf(host), provider, {
    logger: silentLogger,
    gracefulShutdownTimeoutMs: 10_000,
    sharding: { groupName: group, namespace: 'default', id, weight, timings },
    ...extra,
  });
  controllerManagedBy(mgr)
    .named('record')
    .for(configMapKind)
    .complete(async (req: Request, ctx: ReconcileContext) => {
      const entry: Interval = { replica: id, cluster: req.clusterName, start: performance.now(), end: Number.NaN };
      reconciles.push(entry);
      try {
        if (stubborn?.replica === id && stubborn.cluster === req.clusterName) await stubborn.gate;
        const cluster = await mgr.getCluster(req.clusterName, ctx.signal);
        await cluster.client.get(configMapKind, req, { signal: ctx.signal });
      } finally {
        entry.end = performance.now();
      }
    });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  // Observed at once, so an early exit fails the test that saw it instead of going unhandled until afterAll.
  void done.then(
    () => !stop.signal.aborted && exits.push(`${id} stopped by itself`),
    (err: unknown) => !stop.signal.aborted && exits.push(`${id} failed: ${err instanceof Error ? err.message : String(err)}`),
  );
  const r: Replica = { id, weight, mgr, provider, stop, done };
  replicas.push(r);
  await Promise.all(names.map((name, i) => provider.add(name, kubeconfigOf(members[i % members.length]!))));
  return r;
}

async function stopReplica(r: Replica): Promise<void> {
  r.stop.abort();
  await r.done;
  replicas.splice(replicas.indexOf(r), 1);
}

const live = () => replicas.filter((r) => !r.stop.signal.aborted);
const peersOf = (rs: Replica[]): Peer[] => rs.map((r) => ({ id: r.id, weight: r.weight }));

/** cluster → replicas that have it engaged. */
function engagedBy(): Map<string, string[]> {
  const m = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const r of replicas) for (const c of r.mgr.engagedClusters()) m.get(c)?.push(r.id);
  return m;
}

/** The assignment rendezvous hashing gives for the live replicas, as cluster → [owner]. */
function expected(): Map<string, string[]> {
  return new Map(names.map((n) => [n, [ownerOf(n, peersOf(live()))!.id]]));
}

async function fenceHolders(): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  for (const name of names) {
    try {
      const lease = await hostTool.apiReader.get<Lease>(leaseKind, { namespace: 'default', name: fenceLeaseName(group, name) });
      m.set(name, lease.spec?.holderIdentity ?? '');
    } catch {
      m.set(name, '');
    }
  }
  return m;
}

beforeAll(async () => {
  host = await startApiServer();
  members = await Promise.all(Array.from({ length: 6 }, () => startApiServer()));
  // Two cluster names per member server: names are what is sharded.
  for (let i = 0; i < 2 * members.length; i++) names.push(`member-${i}`);
  for (let i = 0; i < members.length; i++) {
    const t = newCluster(kubeconfigOf(members[i]!), { logger: silentLogger });
    tools.push(t);
    await t.client.create(configMap('churn'));
  }
  hostTool = newCluster(kubeconfigOf(host), { logger: silentLogger });
});

afterAll(async () => {
  stubborn?.open();
  for (const r of replicas) r.stop.abort();
  await Promise.allSettled(replicas.map((r) => r.done));
  await Promise.all([...tools, hostTool].map((t) => t.close()));
  await Promise.all([host, ...members].map((s) => s.close()));
});

describe('sharding across replicas', () => {
  const poll = { timeout: 10_000, interval: 20 };

  it('owns each cluster on exactly one replica, rebalances on join and leave within the bound, never twice at once', async () => {
    const guard = watchForDoubleOwnership(engagedBy);
    const writes = churn(tools);
    let joinTook = Number.NaN;
    let leaveTook = Number.NaN;
    let left = Number.NaN;
    let held: string[] = [];
    let leaving: Replica | undefined;
    try {
      await Promise.all([startReplica('replica-a'), startReplica('replica-b'), startReplica('replica-c')]);
      await expect.poll(engagedBy, poll).toEqual(expected());
      // The fences say the same.
      await expect
        .poll(async () => [...(await fenceHolders()).entries()], poll)
        .toEqual([...expected().entries()].map(([c, [o]]) => [c, o]));
      // Only the owners run informers: one ConfigMap watch per cluster name (two per server), not one per replica.
      await expect.poll(() => members.map((m) => m.stats().openWatches), poll).toEqual(members.map(() => 2));

      // A replica joins: it takes its share and the old owners let go of it.
      const joined = performance.now();
      await startReplica('replica-d');
      await expect.poll(engagedBy, poll).toEqual(expected());
      joinTook = performance.now() - joined;

      // A replica stops: its clusters move to the others.
      leaving = [...replicas].sort((x, y) => y.mgr.engagedClusters().length - x.mgr.engagedClusters().length)[0]!;
      held = leaving.mgr.engagedClusters();
      left = performance.now();
      const stopped = stopReplica(leaving);
      await expect.poll(engagedBy, poll).toEqual(expected());
      leaveTook = performance.now() - left;
      await stopped;
      await expect.poll(() => members.map((m) => m.stats().openWatches), poll).toEqual(members.map(() => 2));
      // Every cluster gets reconciled by its final owner after the moves (the write stream keeps touching each one).
      const notReconciledByOwner = (): string[] =>
        names.filter((name) => !reconciles.some((r) => r.cluster === name && r.replica === expected().get(name)![0] && r.start > left));
      await expect.poll(notReconciledByOwner, poll).toEqual([]);
    } finally {
      await writes.stop();
    }
    expect(guard.stop()).toEqual([]);
    expect(overlappingReconciles(reconciles, names)).toEqual([]);
    expect(joinTook).toBeLessThan(rebalanceBoundMs);
    expect(leaveTook).toBeLessThan(rebalanceBoundMs);
    // The stopped replica had clusters, and each now runs on a surviving replica.
    expect(held.length).toBeGreaterThan(0);
    for (const name of held) expect(engagedBy().get(name)).not.toContain(leaving.id);
  });

  it('answers getCluster only for owned clusters, with a distinct error that still counts as not found', async () => {
    await expect.poll(engagedBy, poll).toEqual(expected());
    const [owner, other] = live();
    const name = names.find((n) => expected().get(n)![0] === owner!.id)!;
    expect((await owner!.mgr.getCluster(name)).name).toBe(name);
    const err = await other!.mgr.getCluster(name).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClusterNotOwnedError);
    expect(err).toBeInstanceOf(ClusterNotFoundError);
    expect((err as ClusterNotOwnedError).owner).toBe(owner!.id);
    expect((err as Error).message).toContain(owner!.id);
    const unknown = await other!.mgr.getCluster('no-such-cluster').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(unknown).toBeInstanceOf(ClusterNotFoundError);
    expect(unknown).not.toBeInstanceOf(ClusterNotOwnedError);
    // The local cluster is never sharded.
    expect(await other!.mgr.getCluster('')).toBe(other!.mgr.getLocalCluster());
  });

  it("moves a cluster only after the old owner's reconcile of it returned, even one that ignores its signal", async () => {
    await expect.poll(engagedBy, poll).toEqual(expected());
    // A joining replica that takes at least one cluster; the target is one it takes.
    const joiner = ['replica-g', 'replica-h', 'replica-i'].find((id) =>
      names.some((n) => ownerOf(n, [...peersOf(live()), { id, weight: 1 }])!.id === id),
    )!;
    const target = names.find((n) => ownerOf(n, [...peersOf(live()), { id: joiner, weight: 1 }])!.id === joiner)!;
    const oldOwner = expected().get(target)![0]!;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    stubborn = { replica: oldOwner, cluster: target, gate, open };
    const guard = watchForDoubleOwnership(engagedBy);
    const writes = churn(tools);
    try {
      // The old owner is now stuck in a reconcile of the target (churn keeps changing every member).
      await expect
        .poll(() => reconciles.some((r) => r.replica === oldOwner && r.cluster === target && Number.isNaN(r.end)), poll)
        .toBe(true);
      const joined = performance.now();
      await startReplica(joiner);
      // Everything else rebalances, and the joiner reconciles a cluster it took…
      const others = () => [...engagedBy()].filter(([n]) => n !== target);
      await expect.poll(others, poll).toEqual([...expected()].filter(([n]) => n !== target));
      await expect.poll(() => reconciles.some((r) => r.replica === joiner && r.start > joined), poll).toBe(true);
      // …but the target is engaged nowhere while the old owner's reconcile of it still runs: its fence is kept.
      expect(engagedBy().get(target)).toEqual([]);
      expect((await fenceHolders()).get(target)).toBe(oldOwner);
      expect(reconciles.some((r) => r.replica === joiner && r.cluster === target)).toBe(false);
      const released = performance.now();
      open();
      await expect.poll(engagedBy, poll).toEqual(expected());
      await expect.poll(() => reconciles.some((r) => r.replica === joiner && r.cluster === target && r.start > released), poll).toBe(true);
    } finally {
      stubborn.open();
      stubborn = undefined;
      await writes.stop();
    }
    expect(guard.stop()).toEqual([]);
    expect(overlappingReconciles(reconciles, names)).toEqual([]);
  });

  it('still shards on every replica with leader election on; leader-only runnables stay on the leader', async () => {
    for (const r of [...replicas]) await stopReplica(r);
    const le = (id: string): Partial<ManagerOptions> => ({
      leaderElection: {
        enabled: true,
        namespace: 'default',
        name: 'shard-it-leader',
        id,
        leaseDurationMs: 2000,
        renewDeadlineMs: 1500,
        retryPeriodMs: 200,
      },
    });
    const leaderOnlyRuns: string[] = [];
    const before = reconciles.length;
    const [e, f] = await Promise.all([startReplica('replica-e', 1, le('replica-e')), startReplica('replica-f', 1, le('replica-f'))]);
    for (const r of [e, f])
      r.mgr.add({
        name: 'singleton',
        start: async () => {
          leaderOnlyRuns.push(r.id);
        },
      });
    await expect.poll(engagedBy, poll).toEqual(expected());
    // Both replicas own clusters (with 12 names and 2 equal peers, each gets some) and reconcile them.
    expect(e.mgr.engagedClusters().length).toBeGreaterThan(0);
    expect(f.mgr.engagedClusters().length).toBeGreaterThan(0);
    await expect.poll(() => [...new Set(reconciles.slice(before).map((r) => r.replica))].sort(), poll).toEqual(['replica-e', 'replica-f']);
    await expect.poll(() => leaderOnlyRuns.length, poll).toBe(1);
    expect(overlappingReconciles(reconciles, names)).toEqual([]);
  });
});
