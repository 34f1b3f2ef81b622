/**
 * Engage latency: the time from a cluster appearing (its kubeconfig file renamed into the watched folder, or its
 * kubeconfig Secret's create request sent) to the first reconcile of one of its objects, for 1, 10 and 100 clusters
 * appearing at once. Each implementation runs in a fresh process; a discarded single-cluster round warms it up;
 * every round uses new cluster names, and waits for the previous round's clusters to be disengaged. Beside the latency,
 * the runner's CPU time from publishing a round to its last first reconcile, per cluster: what engaging costs.
 */
import { waitFor } from '../concurrency.js';
import { FleetProcess } from '../fleet/fleet-process.js';
import { BENCH_NAMESPACE } from '../fleet/fleet-names.js';
import { RunnerProcess } from '../runner-process.js';
import type { ProviderKind } from '../runners/runner-args.js';
import { summarize, type Summary } from '../stats.js';
import { formatNumber, renderTable } from '../table.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

export interface EngageResult {
  impl: string;
  source: ProviderKind;
  clusters: number;
  rounds: number;
  /** Appear → first reconcile, ms, over every cluster of every round. */
  latencyMs: Summary;
  /** The runner's CPU time (user + system) from publishing a round to its last first reconcile, per cluster. */
  cpuMsPerCluster: number;
}

export async function engageScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const sizes = ctx.quick ? [1, 10] : [1, 10, 100];
  const roundsFor = (size: number): number => (ctx.quick ? (size === 1 ? 5 : 2) : size === 1 ? 20 : size === 10 ? 5 : 3);
  const sources: ProviderKind[] = ['file', 'secret'];
  const fleet = await FleetProcess.start(Math.max(...sizes), 1);
  const results: EngageResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  let seq = 0;
  try {
    for (const source of sources) {
      for (const impl of ctx.impls) {
        const dir = await fleet.newWatchDir(`engage-${impl.name}`);
        let runner: RunnerProcess | undefined;
        try {
          runner = await RunnerProcess.start(impl, {
            provider: source,
            dir,
            hostKubeconfig: fleet.hostKubeconfigPath,
            namespace: BENCH_NAMESPACE,
            concurrency: 1,
          });
          const r = runner;
          /** One round: each cluster's appear → first reconcile (ms), and the runner's CPU meanwhile (ms). */
          const round = async (size: number): Promise<{ latencies: number[]; cpuMs: number }> => {
            const ids = Array.from({ length: size }, (_, i) => ({ id: `e${seq++}`, member: i }));
            const cpuBefore = await r.reset();
            const published = await Promise.all(
              ids.map(({ id, member }) => (source === 'file' ? fleet.publishFile(dir, id, member) : fleet.publishSecret(id, member))),
            );
            await waitFor(
              () => ids.every(({ id }) => r.firsts.has(id)),
              60_000 + size * 1000,
              `${size} first reconciles (${impl.name}, ${source})`,
            );
            const cpuMs = (await r.stats()).cpuMs - cpuBefore;
            const latencies = ids.map(({ id }, i) => (r.firsts.get(id)! - published[i]!) / 1000);
            await Promise.all(ids.map(({ id }) => (source === 'file' ? fleet.unpublishFile(dir, id) : fleet.unpublishSecret(id))));
            await waitFor(async () => (await r.engaged()) === 0, 60_000, `${size} clusters to disengage (${impl.name}, ${source})`, 50);
            return { latencies, cpuMs };
          };
          await round(1); // warm-up
          for (const size of sizes) {
            const rounds = roundsFor(size);
            const samples: number[] = [];
            let cpuMs = 0;
            for (let i = 0; i < rounds; i++) {
              const done = await round(size);
              samples.push(...done.latencies);
              cpuMs += done.cpuMs;
            }
            const latencyMs = summarize(samples);
            const cpuMsPerCluster = cpuMs / samples.length;
            results.push({ impl: impl.name, source, clusters: size, rounds, latencyMs, cpuMsPerCluster });
            ctx.progress(
              `engage ${source} ${impl.name} ${size} clusters: p50 ${formatNumber(latencyMs.p50)} ms, p99 ${formatNumber(latencyMs.p99)} ms, ` +
                `${formatNumber(cpuMsPerCluster)} ms CPU per cluster`,
            );
          }
        } catch (err) {
          errors.push({ impl: impl.name, config: `source=${source}`, message: errorMessage(err) });
          ctx.progress(`engage ${source} ${impl.name} failed: ${errorMessage(err)}`);
        } finally {
          await runner?.stop();
        }
      }
    }
  } finally {
    await fleet.close();
  }

  const header = ['source', 'clusters', ...ctx.impls.flatMap((i) => [`${i.name} p50`, 'p99', 'CPU ms/cluster'])];
  const rows = sources.flatMap((source) =>
    sizes.map((size) => [
      source,
      String(size),
      ...ctx.impls.flatMap((impl) => {
        const r = results.find((x) => x.impl === impl.name && x.source === source && x.clusters === size);
        return [formatNumber(r?.latencyMs.p50), formatNumber(r?.latencyMs.p99), formatNumber(r?.cpuMsPerCluster)];
      }),
    ]),
  );
  return {
    name: 'engage',
    title: 'Engage latency',
    params: { sizes, rounds: Object.fromEntries(sizes.map((s) => [s, roundsFor(s)])), sources, objectsPerCluster: 1 },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable('Engage latency: cluster appears -> its first reconcile (ms), and the CPU the runner spent on it', header, rows),
  };
}
