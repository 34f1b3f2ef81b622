/**
 * Throughput: reconciles per second across 10 and 100 clusters of 100 ConfigMaps each, under a steady stream of
 * updates written as fast as the servers take them (closed loop, round-robin over every object). Reports the
 * reconciles/s each implementation completed next to the update rate offered, over several windows (median and
 * range), with the latency and CPU cost per 1,000 events of the same windows: the runner's, and the fleet server's and
 * the writer's, which do the same work whoever watches and so show what share of the machine's CPU per update is the
 * runner's. The implementations take turns in rounds whose order rotates (see rounds.ts), one warmed-up window each per
 * round, in a runner kept between turns, after a first turn for each size that is left out (the first turn is slow
 * whoever takes it).
 */
import { FleetProcess } from '../fleet/fleet-process.js';
import { spread, summarizeMicros, type Spread, type Summary } from '../stats.js';
import { processCpuMs } from '../protocol.js';
import { formatNumber, formatRange, renderTable } from '../table.js';
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
  /**
   * The fleet server's and the writer's CPU time per 1,000 updates, ms, per window: the same work whoever watches, so
   * they show how much of the machine's CPU per update is the runner's, and how much the servers' cost moves between
   * turns.
   */
  fleetCpuMsPer1000Events: Spread;
  writerCpuMsPer1000Events: Spread;
  /** Windows this implementation ran and left out: 1 for the one that took the size's first turn, else 0. */
  windowsLeftOut: number;
}

/** What one window of one implementation gave. */
interface ThroughputWindow {
  reconcilesPerSecond: number;
  updatesPerSecond: number;
  cpuMsPer1000Events: number;
  fleetCpuMsPer1000Events: number;
  writerCpuMsPer1000Events: number;
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
  const discardFirstTurn = true;
  const fleet = await FleetProcess.start(Math.max(...sizes), objects);
  const results: ThroughputResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  try {
    for (const clusters of sizes) {
      const writer = await UpdateWriter.create(fleet, clusters, objects);
      try {
        const windowsOf = new Map<string, ThroughputWindow[]>();
        const leftOut = new Map<string, number>();
        await takeTurns(
          { fleet, ctx, rounds: windows, clusters, errors, what: `throughput ${clusters} clusters`, discardFirstTurn },
          async (runner, impl, round, first) => {
            // A runner's first turn warms it longer: it has compiled little of its code yet.
            await writer.closedLoop(writers, first ? firstWarmupMs : warmupMs);
            await statsWhenDrained(runner);
            const cpu0 = await runner.reset();
            const fleetCpu0 = (await fleet.stats()).cpuMs;
            const writerCpu0 = processCpuMs();
            const t0 = performance.now();
            const written = await writer.closedLoop(writers, windowMs);
            const writerCpuMs = processCpuMs() - writerCpu0;
            const stats = await statsWhenDrained(runner);
            const fleetCpuMs = (await fleet.stats()).cpuMs - fleetCpu0;
            const per1000 = (ms: number): number => (ms / Math.max(1, written.written)) * 1000;
            const w: ThroughputWindow = {
              reconcilesPerSecond: stats.reconciles / ((performance.now() - t0) / 1000),
              updatesPerSecond: written.rate,
              cpuMsPer1000Events: per1000(stats.cpuMs - cpu0),
              fleetCpuMsPer1000Events: per1000(fleetCpuMs),
              writerCpuMsPer1000Events: per1000(writerCpuMs),
              samples: stats.samples,
            };
            if (round < 0) {
              leftOut.set(impl.name, (leftOut.get(impl.name) ?? 0) + 1);
              const what = `throughput ${impl.name} ${clusters} clusters, the first turn (left out)`;
              ctx.progress(`${what}: ${formatNumber(w.reconcilesPerSecond)} reconciles/s at ${formatNumber(w.updatesPerSecond)} updates/s`);
              return;
            }
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
            fleetCpuMsPer1000Events: spread(mine.map((w) => w.fleetCpuMsPer1000Events)),
            writerCpuMsPer1000Events: spread(mine.map((w) => w.writerCpuMsPer1000Events)),
            windowsLeftOut: leftOut.get(impl.name) ?? 0,
          });
        }
      } finally {
        await writer.close();
      }
    }
  } finally {
    await fleet.close();
  }

  const header = ['clusters', 'impl', 'reconciles/s', 'range', 'updates/s', 'p50 ms', 'p99 ms', 'CPU ms/1k ev', 'fleet CPU', 'writer CPU'];
  const rows = sizes.flatMap((clusters) =>
    ctx.impls.map((impl) => {
      const r = results.find((x) => x.impl === impl.name && x.clusters === clusters);
      return [
        String(clusters),
        impl.name,
        formatNumber(r?.reconcilesPerSecond.median, 0),
        formatRange(r?.reconcilesPerSecond, 0),
        formatNumber(r?.updatesPerSecond.median, 0),
        formatNumber(r?.latencyMs.p50),
        formatNumber(r?.latencyMs.p99),
        formatNumber(r?.cpuMsPer1000Events.median),
        formatNumber(r?.fleetCpuMsPer1000Events.median),
        formatNumber(r?.writerCpuMsPer1000Events.median),
      ];
    }),
  );
  return {
    name: 'throughput',
    title: 'Throughput',
    params: {
      sizes,
      objectsPerCluster: objects,
      windowMs,
      windows,
      warmupMs,
      firstWarmupMs,
      writers,
      maxConcurrentReconciles: 4,
      discardFirstTurn,
    },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `Throughput: reconciles/s under a closed-loop update stream (${objects} objects per cluster, ${windows} x ${windowMs / 1000} s; CPU: ms per 1,000 updates of the runner, the fleet server and the writer)`,
      header,
      rows,
    ),
  };
}
