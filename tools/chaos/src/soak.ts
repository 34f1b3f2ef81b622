/**
 * One chaos run: the fleet, the manager with the file provider and the controller, the writer and the adversary for
 * the duration, then the fleet healed, a settle window, and the checks: no lost work, heap back to where it was after
 * warm-up (after GC), and no socket or timer left once everything is closed.
 */
import { newManager, silentLogger } from '@multicluster-runtime/core';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { Adversary, type Fault } from './adversary.js';
import type { ChaosArgs } from './args.js';
import { checkUntil, type Verdict } from './checker.js';
import { setupChaosController, type ControllerStats } from './controller.js';
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
  const controller: ControllerStats = { reconciles: 0, injectedErrors: 0, throwRate: 0 };
  // Short retries: the soak injects a fault every second or so, and members must be back within the settle window.
  const provider = new KubeconfigFileProvider({ paths: [fleet.dir], retry: { initialMs: 500, maxMs: 5_000 } });
  const mgr = newManager(fleet.hostConfig(), provider, { logger: silentLogger });
  setupChaosController(mgr, controller, args.sabotage, () => random.next());
  const adversary = new Adversary(fleet, controller, random);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const heapMiB: ChaosReport['heapMiB'] = {};
  let verdict: Verdict;
  try {
    const engagedBy = Date.now() + 60_000;
    while (mgr.engagedClusters().filter((n) => n !== '').length < args.members) {
      if (Date.now() > engagedBy) throw new Error(`only ${mgr.engagedClusters().length - 1} of ${args.members} members engaged after 60 s`);
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
    failures,
  };
}
