/**
 * Steady-state set-up shared by the throughput, latency, memory and objects scenarios: members of the fleet engaged
 * in an implementation through a kubeconfig folder (and removed again), their initial reconciles done.
 */
import { mapConcurrent, waitFor } from '../concurrency.js';
import type { FleetProcess } from '../fleet/fleet-process.js';
import { BENCH_NAMESPACE } from '../fleet/fleet-names.js';
import type { StatsReply } from '../protocol.js';
import { RunnerProcess, type ImplSpec } from '../runner-process.js';

export const STEADY_CONCURRENCY = 4;

/**
 * Publishes members 0..clusters-1 into the folder `runner` watches, as clusters `<prefix>0`, `<prefix>1`, …, and waits
 * until each is engaged and reconciled. Returns the cluster names.
 */
export async function engageMembers(
  fleet: FleetProcess,
  runner: RunnerProcess,
  dir: string,
  clusters: number,
  prefix = 'c',
): Promise<string[]> {
  const ids = Array.from({ length: clusters }, (_, i) => `${prefix}${i}`);
  await mapConcurrent(ids, 50, (id, i) => fleet.publishFile(dir, id, i));
  const timeoutMs = 60_000 + clusters * 200;
  await waitFor(() => runner.reconciledAll(ids), timeoutMs, `first reconciles of ${clusters} clusters (${runner.impl.name})`, 50);
  await waitFor(async () => (await runner.engaged()) === clusters, timeoutMs, `${clusters} engaged clusters (${runner.impl.name})`, 50);
  return ids;
}

/** Removes the clusters `ids` from the folder `runner` watches and waits until it has none engaged. */
export async function disengageMembers(fleet: FleetProcess, runner: RunnerProcess, dir: string, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id) => fleet.unpublishFile(dir, id)));
  await waitFor(async () => (await runner.engaged()) === 0, 60_000, `${ids.length} clusters to disengage (${runner.impl.name})`, 50);
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

/**
 * Engages members 0..clusters-1 in a running runner as new clusters named with `prefix` (see engageMembers), then
 * waits for the reconciles of all their objects. Resets the runner's counts first.
 */
export async function engageWithInitialReconciles(
  fleet: FleetProcess,
  runner: RunnerProcess,
  dir: string,
  clusters: number,
  prefix: string,
): Promise<string[]> {
  await runner.reset();
  const ids = await engageMembers(fleet, runner, dir, clusters, prefix);
  const initial = clusters * fleet.objects;
  await waitFor(
    async () => (await runner.stats()).reconciles >= initial,
    60_000 + initial,
    `${initial} initial reconciles (${runner.impl.name})`,
    100,
  );
  return ids;
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
