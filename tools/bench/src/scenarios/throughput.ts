/**
 * Throughput: reconciles per second across 10 and 100 clusters of 100 ConfigMaps each, under a steady stream of
 * updates written as fast as the servers take them (closed loop, round-robin over every object). Reports the
 * reconciles/s each implementation completed next to the update rate offered, over several windows (median and
 * range), with the latency and CPU cost per 1,000 events of the same windows. The implementations take turns in
 * rounds whose order rotates (see rounds.ts), one warmed-up window each per round, in a runner kept between turns.
 */
import { FleetProcess } from '../fleet/fleet-process.js';
import { spread, summarizeMicros, type Spread, type Summary } from '../stats.js';
import { formatNumber, renderTable } from '../table.js';
import { UpdateWriter } from '../writer.js';
import { statsWhenDrained } from './engaged-runner.js';
import { takeTurns } from './rounds.js';
import type { ScenarioContext, ScenarioResult } from './scenario.js';

export interface ThroughputResult {
  impl: string;
  clusters: number;
  objectsPerCluster: number;
  /** Reconciles completed per second, per window. */
  reconcilesPerSecond: Spread;
  /** Updates the servers accepted per second, per window (the offered load). */
  updatesPerSecond: Spread;
  /** Update → reconcile latency over all windows, ms. */
  latencyMs: Summary;
  /** Runner CPU time per 1,000 updates, ms, per window. */
  cpuMsPer1000Events: Spread;
}

/** What one window of one implementation gave. */
interface ThroughputWindow {
  reconcilesPerSecond: number;
  updatesPerSecond: number;
  cpuMsPer1000Events: number;
  /** Update → reconcile latencies, µs. */
  samples: number[];
}

export async function throughputScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const sizes = ctx.quick ? [4] : [10, 100];
  const objects = ctx.quick ? 20 : 100;
  const windowMs = ctx.quick ? 3000 : 10_000;
  const windows = ctx.quick ? 1 : 3;
  const warmupMs = ctx.quick ? 1000 : 3000;
  const firstWarmupMs = ctx.quick ? 1000 : 10_000;
  const writers = 32;
  const fleet = await FleetProcess.start(Math.max(...sizes), objects);
  const results: ThroughputResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  try {
    for (const clusters of sizes) {
      const writer = await UpdateWriter.create(fleet, clusters, objects);
      try {
        const windowsOf = new Map<string, ThroughputWindow[]>();
        await takeTurns(
          { fleet, ctx, rounds: windows, clusters, errors, what: `throughput ${clusters} clusters` },
          async (runner, impl, round) => {
            // A runner's first turn warms it longer: it has compiled little of its code yet.
            await writer.closedLoop(writers, round === 0 ? firstWarmupMs : warmupMs);
            await statsWhenDrained(runner);
            const cpu0 = await runner.reset();
            const t0 = performance.now();
            const written = await writer.closedLoop(writers, windowMs);
            const stats = await statsWhenDrained(runner);
            const w: ThroughputWindow = {
              reconcilesPerSecond: stats.reconciles / ((performance.now() - t0) / 1000),
              updatesPerSecond: written.rate,
              cpuMsPer1000Events: ((stats.cpuMs - cpu0) / Math.max(1, written.written)) * 1000,
              samples: stats.samples,
            };
            windowsOf.set(impl.name, [...(windowsOf.get(impl.name) ?? []), w]);
            ctx.progress(
              `throughput ${impl.name} ${clusters} clusters, round ${round + 1} of ${windows}: ${formatNumber(w.reconcilesPerSecond)} reconciles/s at ${formatNumber(w.updatesPerSecond)} updates/s`,
            );
          },
        );
        for (const impl of ctx.impls) {
          const mine = windowsOf.get(impl.name) ?? [];
          if (mine.length < windows) continue; // failed part-way: reported in errors
          results.push({
            impl: impl.name,
            clusters,
            objectsPerCluster: objects,
            reconcilesPerSecond: spread(mine.map((w) => w.reconcilesPerSecond)),
            updatesPerSecond: spread(mine.map((w) => w.updatesPerSecond)),
            latencyMs: summarizeMicros(mine.flatMap((w) => w.samples)),
            cpuMsPer1000Events: spread(mine.map((w) => w.cpuMsPer1000Events)),
          });
        }
      } finally {
        await writer.close();
      }
    }
  } finally {
    await fleet.close();
  }

  const range = (s: Spread | undefined): string => (s && s.samples.length > 1 ? `${formatNumber(s.min, 0)}-${formatNumber(s.max, 0)}` : '');
  const header = ['clusters', 'impl', 'reconciles/s', 'range', 'updates/s', 'p50 ms', 'p99 ms', 'CPU ms/1k ev'];
  const rows = sizes.flatMap((clusters) =>
    ctx.impls.map((impl) => {
      const r = results.find((x) => x.impl === impl.name && x.clusters === clusters);
      return [
        String(clusters),
        impl.name,
        formatNumber(r?.reconcilesPerSecond.median, 0),
        range(r?.reconcilesPerSecond),
        formatNumber(r?.updatesPerSecond.median, 0),
        formatNumber(r?.latencyMs.p50),
        formatNumber(r?.latencyMs.p99),
        formatNumber(r?.cpuMsPer1000Events.median),
      ];
    }),
  );
  return {
    name: 'throughput',
    title: 'Throughput',
    params: { sizes, objectsPerCluster: objects, windowMs, windows, warmupMs, firstWarmupMs, writers, maxConcurrentReconciles: 4 },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `Throughput: reconciles/s under a closed-loop update stream (${objects} objects per cluster, ${windows} x ${windowMs / 1000} s)`,
      header,
      rows,
    ),
  };
}
