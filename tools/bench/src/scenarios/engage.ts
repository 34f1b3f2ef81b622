/**
 * Engage latency: the time from a cluster appearing (its kubeconfig file renamed into the watched folder, or its
 * kubeconfig Secret's create request sent) to the first reconcile of one of its objects, for 1, 10 and 100 clusters
 * appearing at once. Per source, every implementation gets one runner, watching a folder or a Secret namespace of its
 * own, warmed up by a discarded single-cluster round; then they take turns round by round in an order that rotates
 * (as in rounds.ts), so none always meets the fleet's servers first. Every round uses new cluster names and waits for
 * its clusters to be disengaged. Beside the latency, the runner's CPU time from publishing a round to its last first
 * reconcile, per cluster: what engaging costs.
 */
import { waitFor } from '../concurrency.js';
import { FleetProcess } from '../fleet/fleet-process.js';
import { BENCH_NAMESPACE } from '../fleet/fleet-names.js';
import { RunnerProcess, type ImplSpec } from '../runner-process.js';
import type { ProviderKind } from '../runners/runner-args.js';
import { summarize, type Summary } from '../stats.js';
import { formatNumber, renderTable } from '../table.js';
import { rotated } from './rounds.js';
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

/** One implementation's runner for one source, and where its clusters appear. */
interface EngageRunner {
  impl: ImplSpec;
  runner: RunnerProcess;
  dir: string;
  namespace: string;
}

export async function engageScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const sizes = ctx.quick ? [1, 10] : [1, 10, 100];
  const roundsFor = (size: number): number => (ctx.quick ? (size === 1 ? 5 : 2) : size === 1 ? 20 : size === 10 ? 5 : 3);
  const sources: ProviderKind[] = ['file', 'secret'];
  const fleet = await FleetProcess.start(Math.max(...sizes), 1);
  const results: EngageResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  let seq = 0;

  /** One round: each cluster's appear → first reconcile (ms), and the runner's CPU meanwhile (ms). */
  const round = async (e: EngageRunner, source: ProviderKind, size: number): Promise<{ latencies: number[]; cpuMs: number }> => {
    const { runner: r, impl, dir, namespace } = e;
    const ids = Array.from({ length: size }, (_, i) => ({ id: `e${seq++}`, member: i }));
    const cpuBefore = await r.reset();
    const published = await Promise.all(
      ids.map(({ id, member }) => (source === 'file' ? fleet.publishFile(dir, id, member) : fleet.publishSecret(id, member, namespace))),
    );
    await waitFor(
      () => r.reconciledAll(ids.map(({ id }) => id)),
      60_000 + size * 1000,
      `${size} first reconciles (${impl.name}, ${source})`,
    );
    const cpuMs = (await r.stats()).cpuMs - cpuBefore;
    const latencies = ids.map(({ id }, i) => (r.firsts.get(id)! - published[i]!) / 1000);
    await Promise.all(ids.map(({ id }) => (source === 'file' ? fleet.unpublishFile(dir, id) : fleet.unpublishSecret(id, namespace))));
    await waitFor(async () => (await r.engaged()) === 0, 60_000, `${size} clusters to disengage (${impl.name}, ${source})`, 50);
    return { latencies, cpuMs };
  };

  try {
    for (const source of sources) {
      const runners = new Map<string, EngageRunner>();
      /** Reports an implementation's failure and takes it out of this source's remaining rounds. */
      const fail = async (impl: ImplSpec, err: unknown): Promise<void> => {
        await runners.get(impl.name)?.runner.stop();
        runners.delete(impl.name);
        errors.push({ impl: impl.name, config: `source=${source}`, message: errorMessage(err) });
        ctx.progress(`engage ${source} ${impl.name} failed: ${errorMessage(err)}`);
      };
      try {
        for (const impl of ctx.impls) {
          try {
            const dir = await fleet.newWatchDir(`engage-${impl.name}`);
            const namespace = source === 'secret' ? await fleet.newSecretNamespace(impl.name) : BENCH_NAMESPACE;
            const runner = await RunnerProcess.start(impl, {
              provider: source,
              dir,
              hostKubeconfig: fleet.hostKubeconfigPath,
              namespace,
              concurrency: 1,
            });
            runners.set(impl.name, { impl, runner, dir, namespace });
            await round(runners.get(impl.name)!, source, 1); // warm-up
          } catch (err) {
            await fail(impl, err);
          }
        }
        for (const size of sizes) {
          const rounds = roundsFor(size);
          const measured = new Map<string, { samples: number[]; cpuMs: number }>();
          for (let i = 0; i < rounds; i++) {
            for (const impl of rotated(ctx.impls, i)) {
              const e = runners.get(impl.name);
              if (!e) continue;
              try {
                const done = await round(e, source, size);
                const m = measured.get(impl.name) ?? { samples: [], cpuMs: 0 };
                m.samples.push(...done.latencies);
                m.cpuMs += done.cpuMs;
                measured.set(impl.name, m);
              } catch (err) {
                await fail(impl, err);
              }
            }
          }
          for (const impl of ctx.impls) {
            const m = measured.get(impl.name);
            if (!m || !runners.has(impl.name)) continue; // failed in this size: no row from a part of its rounds
            const latencyMs = summarize(m.samples);
            const cpuMsPerCluster = m.cpuMs / m.samples.length;
            results.push({ impl: impl.name, source, clusters: size, rounds, latencyMs, cpuMsPerCluster });
            ctx.progress(
              `engage ${source} ${impl.name} ${size} clusters: p50 ${formatNumber(latencyMs.p50)} ms, p99 ${formatNumber(latencyMs.p99)} ms, ` +
                `${formatNumber(cpuMsPerCluster)} ms CPU per cluster`,
            );
          }
        }
      } finally {
        await Promise.all([...runners.values()].map(({ runner }) => runner.stop()));
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
