/**
 * One chaos run: the fleet, the manager (or `replicas` managers sharding the members, with leader election) with the
 * file provider and the controller, the writer and the adversary for the duration, then the fleet healed, a settle
 * window, and the checks: no lost work, no reconcile started for a disengaged member, no member reconciled by two
 * replicas at once, heap back to where it was after warm-up (after GC), and no socket or timer left once everything
 * is closed.
 */
import { newManager, silentLogger } from '@multicluster-runtime/core';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { LeaderElectionLostError } from '@multicluster-runtime/core/leaderelection';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { Adversary, type Fault } from './adversary.js';
import type { ChaosArgs } from './args.js';
import { checkUntil, type Verdict } from './checker.js';
import { newControllerStats, overlaps, setupChaosController, type ControllerStats } from './controller.js';
import { ChaosFleet } from './fleet.js';
import { Random } from './random.js';

export interface ChaosReport {
  args: ChaosArgs;
  injected: Record<Fault, number>;
  writes: Adversary['writes'];
  controller: ControllerStats;
  verdict: Verdict;
  /** Heap after GC once every member was engaged, and after the settle window (undefined without --expose-gc). */
  heapMiB: { warm?: number; end?: number };
  /** Open sockets and timers before the fleet started and after everything closed. */
  handles: { before: Handles; after: Handles };
  /** Replicas restarted after losing their leader Lease (as Kubernetes restarts a pod whose manager exited). */
  restarts: number;
  /** Why the run failed; empty when it passed. */
  failures: string[];
}

type Handles = { sockets: number; timers: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function handles(): Handles {
  const active = process.getActiveResourcesInfo();
  return { sockets: active.filter((r) => r === 'TCPSocketWrap').length, timers: active.filter((r) => r === 'Timeout').length };
}

function heapAfterGcMiB(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

export async function runSoak(args: ChaosArgs, progress: (line: string) => void): Promise<ChaosReport> {
  const random = new Random(args.seed);
  const before = handles();
  const fleet = await ChaosFleet.start(args.members);
  const controller = newControllerStats();
  const build = (replica: number): MultiClusterManager => {
    // Short retries: the soak injects a fault every second or so, and members must be back within the settle window.
    const provider = new KubeconfigFileProvider({ paths: [fleet.dir], retry: { initialMs: 500, maxMs: 5_000 } });
    const mgr = newManager(fleet.hostConfig(), provider, { logger: silentLogger, ...(args.replicas > 1 ? replicaOptions(replica) : {}) });
    setupChaosController(mgr, controller, args.sabotage, () => random.next(), replica);
    return mgr;
  };
  const managers = Array.from({ length: args.replicas }, (_, replica) => build(replica));
  const adversary = new Adversary(fleet, controller, random, args.replicas > 1);
  const stop = new AbortController();
  let restarts = 0;
  // A replica whose manager stops because it lost its leader Lease (the host was down) starts again, as the pod would.
  const runReplica = async (replica: number): Promise<void> => {
    for (;;) {
      try {
        return await managers[replica]!.start(stop.signal);
      } catch (err) {
        if (!(err instanceof LeaderElectionLostError)) throw err;
        if (stop.signal.aborted) return; // renewals that failed while it shut down: the stop was asked for
        restarts++;
        progress(`chaos: replica ${replica} lost its leader Lease; restarting it`);
        managers[replica] = build(replica);
      }
    }
  };
  const running = Promise.all(managers.map((_, replica) => runReplica(replica)));
  // Until it is awaited below, a failure must not become an unhandled rejection: it is reported there.
  running.catch(() => {});
  const heapMiB: ChaosReport['heapMiB'] = {};
  let verdict: Verdict;
  try {
    const engagedBy = Date.now() + 60_000;
    while (engaged(managers) < args.members) {
      if (Date.now() > engagedBy) throw new Error(`only ${engaged(managers)} of ${args.members} members engaged after 60 s`);
      await sleep(100);
    }
    heapMiB.warm = heapAfterGcMiB();
    progress(`chaos: ${args.members} members engaged; ${args.durationSec} s of faults (seed ${args.seed}) …`);
    const until = Date.now() + args.durationSec * 1000;
    await Promise.all([adversary.faults(until), adversary.write(until)]);
    progress(`chaos: faults over; healing the fleet and settling (up to ${args.settleSec} s) …`);
    await fleet.heal();
    verdict = await checkUntil(fleet, Date.now() + args.settleSec * 1000);
    heapMiB.end = heapAfterGcMiB();
  } finally {
    stop.abort();
    await running;
    await fleet.close();
  }
  let after = handles();
  for (let i = 0; i < 100 && (after.sockets > before.sockets || after.timers > before.timers); i++) {
    await sleep(100);
    after = handles();
  }

  const failures: string[] = [];
  if (verdict.problems.length > 0) failures.push(`lost work: ${verdict.problems.length} differences after the settle window`);
  if (controller.startedDisengaged > 0) failures.push(`${controller.startedDisengaged} reconciles started for a disengaged member`);
  const twice = overlaps(controller);
  if (twice.length > 0) failures.push(`${twice.length} times two replicas reconciled one member at once (${twice[0]})`);
  if (heapMiB.warm !== undefined && heapMiB.end !== undefined && heapMiB.end > heapMiB.warm * 1.5 + 32) {
    failures.push(`heap grew from ${heapMiB.warm.toFixed(1)} to ${heapMiB.end.toFixed(1)} MiB after GC`);
  }
  if (after.sockets > before.sockets) failures.push(`${after.sockets - before.sockets} sockets left open`);
  if (after.timers > before.timers) failures.push(`${after.timers - before.timers} timers left`);
  return {
    args,
    injected: Object.fromEntries(adversary.injected) as Record<Fault, number>,
    writes: adversary.writes,
    controller,
    verdict,
    heapMiB,
    handles: { before, after },
    restarts,
    failures,
  };
}

/** Members engaged on some replica (each by one, when sharded). */
function engaged(managers: MultiClusterManager[]): number {
  return new Set(managers.flatMap((mgr) => mgr.engagedClusters().filter((n) => n !== ''))).size;
}

/**
 * One replica of a sharded pair: leader election and sharding on the host, with timings short enough that members
 * move within the settle window after the host's API was down (defaults are 15 s Leases).
 */
function replicaOptions(replica: number) {
  return {
    leaderElection: {
      enabled: true,
      namespace: 'default',
      name: 'chaos-leader',
      id: `replica-${replica}`,
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 500,
    },
    sharding: {
      groupName: 'chaos',
      namespace: 'default',
      id: `replica-${replica}`,
      timings: {
        peerLeaseDurationMs: 4_000,
        peerRenewIntervalMs: 500,
        fenceLeaseDurationMs: 4_000,
        fenceRenewDeadlineMs: 3_000,
        fenceRetryPeriodMs: 500,
        recomputeIntervalMs: 2_000,
      },
    },
  };
}
