/**
 * Event → reconcile latency at rates the fleet can take. The scenario first finds the fleet's capacity (updates/s the
 * API servers accept from a closed-loop writer, nobody watching), then runs every implementation twice, open loop (the
 * writer keeps the rate whether or not the implementation keeps up, as a busy fleet does): at half the capacity, a
 * rate every implementation sustains, so latency is latency and not queueing; and at the full capacity, saturated.
 * Latency runs from the writer stamping an update to the reconciler reading that version from its cache, so it
 * includes the API server's write and watch fan-out, which every implementation shares. Each run has several
 * windows after a warm-up: p99 is the median of the windows' p99s, with their range; the other percentiles pool all
 * windows.
 */
import { FleetProcess } from '../fleet/fleet-process.js';
import { percentile, spread, summarizeMicros, type Spread, type Summary } from '../stats.js';
import { formatNumber, renderTable } from '../table.js';
import { UpdateWriter } from '../writer.js';
import type { RunnerProcess } from '../runner-process.js';
import { startWithMembers, statsWhenDrained } from './engaged-runner.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

/** The two loads every implementation is measured at. */
export type LatencyLoad = 'half' | 'saturated';

export interface LatencyResult {
  impl: string;
  load: LatencyLoad;
  clusters: number;
  targetRate: number;
  /** Updates the servers accepted per second, per window. */
  achievedRate: Spread;
  /** Sends the writer skipped because the servers fell behind, over all windows. */
  skipped: number;
  latencyMs: Summary;
  /** p99 of each window, ms: its median is the p99 reported. */
  windowP99Ms: Spread;
  /** Latency at percentiles 1..99 and 99.9 of all windows, ms (for the distribution chart). */
  percentilesMs: { p: number; ms: number }[];
  /** Reconciles per update written (below 1: updates coalesced by the queue). */
  reconcilesPerUpdate: number;
  cpuMsPer1000Events: Spread;
}

/** The percentiles kept for the distribution chart. */
const chartPercentiles = [...Array.from({ length: 99 }, (_, i) => i + 1), 99.5, 99.9];

export async function latencyScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const clusters = ctx.quick ? 4 : 10;
  const objects = ctx.quick ? 20 : 100;
  const windowMs = ctx.quick ? 1500 : 10_000;
  const windows = ctx.quick ? 1 : 3;
  const warmupMs = ctx.quick ? 500 : 3000;
  const capacityMs = ctx.quick ? 1500 : 5000;
  const writers = 32;
  const fleet = await FleetProcess.start(clusters, objects);
  const results: LatencyResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  const writer = await UpdateWriter.create(fleet, clusters, objects);
  let capacity = Number.NaN;
  try {
    await writer.closedLoop(writers, warmupMs);
    capacity = (await writer.closedLoop(writers, capacityMs)).rate;
    const rates: Record<LatencyLoad, number> = { half: Math.round(capacity / 2), saturated: Math.round(capacity) };
    ctx.progress(`latency: the fleet takes ${formatNumber(capacity, 0)} updates/s; measuring at ${rates.half} and ${rates.saturated}`);
    for (const impl of ctx.impls) {
      try {
        const runner = await startWithMembers(fleet, impl, clusters);
        try {
          for (const load of ['half', 'saturated'] as const) {
            const r = await measure(runner, writer, { impl: impl.name, load, clusters, rate: rates[load], windowMs, windows, warmupMs });
            results.push(r);
            ctx.progress(
              `latency ${impl.name} ${load}: p50 ${formatNumber(r.latencyMs.p50)} ms, p99 ${formatNumber(r.windowP99Ms.median)} ms at ${formatNumber(r.achievedRate.median, 0)} updates/s`,
            );
          }
        } finally {
          await runner.stop();
        }
      } catch (err) {
        errors.push({ impl: impl.name, config: `clusters=${clusters}`, message: errorMessage(err) });
        ctx.progress(`latency ${impl.name} failed: ${errorMessage(err)}`);
      }
    }
  } finally {
    await writer.close();
    await fleet.close();
  }

  const header = ['load', 'impl', 'updates/s', 'p50 ms', 'p99 ms', 'p99 range', 'max ms', 'reconciles/update', 'CPU ms/1k ev'];
  const rows = (['half', 'saturated'] as const).flatMap((load) =>
    ctx.impls.map((impl) => {
      const r = results.find((x) => x.impl === impl.name && x.load === load);
      return [
        load,
        impl.name,
        formatNumber(r?.achievedRate.median, 0),
        formatNumber(r?.latencyMs.p50),
        formatNumber(r?.windowP99Ms.median),
        r && windows > 1 ? `${formatNumber(r.windowP99Ms.min)}-${formatNumber(r.windowP99Ms.max)}` : '',
        formatNumber(r?.latencyMs.max),
        formatNumber(r?.reconcilesPerUpdate, 2),
        formatNumber(r?.cpuMsPer1000Events.median),
      ];
    }),
  );
  return {
    name: 'latency',
    title: 'Event to reconcile latency',
    params: {
      clusters,
      objectsPerCluster: objects,
      capacity,
      windowMs,
      windows,
      warmupMs,
      capacityMs,
      writers,
      maxConcurrentReconciles: 4,
    },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `Event -> reconcile latency at half the fleet's capacity and at all of it (${formatNumber(capacity, 0)} updates/s; ${clusters} clusters x ${objects} objects, ${windows} x ${windowMs / 1000} s each)`,
      header,
      rows,
    ),
  };
}

interface Run {
  impl: string;
  load: LatencyLoad;
  clusters: number;
  rate: number;
  windowMs: number;
  windows: number;
  warmupMs: number;
}

/** One implementation at one rate: a warm-up, then `windows` windows, each drained before the next. */
async function measure(runner: RunnerProcess, writer: UpdateWriter, run: Run): Promise<LatencyResult> {
  await writer.openLoop(run.rate, run.warmupMs);
  await statsWhenDrained(runner);
  const rates: number[] = [];
  const p99s: number[] = [];
  const cpu: number[] = [];
  const all: number[] = [];
  let skipped = 0;
  let written = 0;
  let reconciles = 0;
  for (let w = 0; w < run.windows; w++) {
    const cpu0 = await runner.reset();
    const result = await writer.openLoop(run.rate, run.windowMs);
    const stats = await statsWhenDrained(runner);
    rates.push(result.rate);
    skipped += result.skipped;
    written += result.written;
    reconciles += stats.reconciles;
    cpu.push(((stats.cpuMs - cpu0) / Math.max(1, result.written)) * 1000);
    p99s.push(summarizeMicros(stats.samples).p99);
    all.push(...stats.samples);
  }
  const sorted = all.sort((a, b) => a - b);
  return {
    impl: run.impl,
    load: run.load,
    clusters: run.clusters,
    targetRate: run.rate,
    achievedRate: spread(rates),
    skipped,
    latencyMs: summarizeMicros(sorted),
    windowP99Ms: spread(p99s),
    percentilesMs: chartPercentiles.map((p) => ({ p, ms: percentile(sorted, p) / 1000 })),
    reconcilesPerUpdate: reconciles / Math.max(1, written),
    cpuMsPer1000Events: spread(cpu),
  };
}
