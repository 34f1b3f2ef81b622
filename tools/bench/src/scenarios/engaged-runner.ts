/**
 * Steady-state set-up shared by the throughput, latency and memory scenarios: an implementation with `clusters`
 * members of the fleet engaged through a kubeconfig folder, its initial reconciles done.
 */
import { mapConcurrent, waitFor } from '../concurrency.js';
import type { FleetProcess } from '../fleet/fleet-process.js';
import { BENCH_NAMESPACE } from '../fleet/fleet-names.js';
import type { StatsReply } from '../protocol.js';
import { RunnerProcess, type ImplSpec } from '../runner-process.js';

export const STEADY_CONCURRENCY = 4;

/** Publishes members 0..clusters-1 into the folder `runner` watches and waits until each is engaged and reconciled. */
export async function engageMembers(fleet: FleetProcess, runner: RunnerProcess, dir: string, clusters: number): Promise<void> {
  const ids = Array.from({ length: clusters }, (_, i) => `c${i}`);
  await mapConcurrent(ids, 50, (id, i) => fleet.publishFile(dir, id, i));
  const timeoutMs = 60_000 + clusters * 200;
  await waitFor(
    () => ids.every((id) => runner.firsts.has(id)),
    timeoutMs,
    `first reconciles of ${clusters} clusters (${runner.impl.name})`,
    50,
  );
  await waitFor(async () => (await runner.engaged()) === clusters, timeoutMs, `${clusters} engaged clusters (${runner.impl.name})`, 50);
}

/** Starts `impl` with the file provider on a new, empty watched folder named `dirName`; returns both. */
export async function startFileRunner(
  fleet: FleetProcess,
  impl: ImplSpec,
  dirName: string,
): Promise<{ runner: RunnerProcess; dir: string }> {
  const dir = await fleet.newWatchDir(dirName);
  const runner = await RunnerProcess.start(impl, {
    provider: 'file',
    dir,
    hostKubeconfig: fleet.hostKubeconfigPath,
    namespace: BENCH_NAMESPACE,
    concurrency: STEADY_CONCURRENCY,
  });
  return { runner, dir };
}

/** Starts `impl` on a new folder holding members 0..clusters-1, then waits for the reconciles of all their objects. */
export async function startWithMembers(fleet: FleetProcess, impl: ImplSpec, clusters: number): Promise<RunnerProcess> {
  const { runner, dir } = await startFileRunner(fleet, impl, impl.name);
  try {
    await engageMembers(fleet, runner, dir, clusters);
    const initial = clusters * fleet.objects;
    await waitFor(
      async () => (await runner.stats()).reconciles >= initial,
      60_000 + initial,
      `${initial} initial reconciles (${impl.name})`,
      100,
    );
  } catch (err) {
    await runner.stop();
    throw err;
  }
  return runner;
}

/**
 * Stats once the runner has caught up: polls until the reconcile count stops growing (or `maxMs` passes), so that
 * the slowest reconciles of a window are counted instead of cut off.
 */
export async function statsWhenDrained(runner: RunnerProcess, maxMs = 5000): Promise<StatsReply> {
  const deadline = Date.now() + maxMs;
  let last = await runner.stats();
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const next = await runner.stats();
    if (next.reconciles === last.reconciles || Date.now() > deadline) return next;
    last = next;
  }
}
