/**
 * Event → reconcile latency at rates the fleet can take. The scenario first finds the fleet's capacity (updates/s the
 * API servers accept from a closed-loop writer, nobody watching), then runs every implementation twice, open loop (the
 * writer keeps the rate whether or not the implementation keeps up, as a busy fleet does): at half the capacity, a
 * rate every implementation sustains, so latency is latency and not queueing; and at the full capacity, saturated.
 * Latency runs from the writer stamping an update to the reconciler reading that version from its cache, so it
 * includes the API server's write and watch fan-out, which every implementation shares. The implementations take
 * turns in rounds whose order rotates (see rounds.ts), after a first turn that is left out (the scenario's first turn
 * is slow whoever takes it): in each turn the members are engaged in the implementation's kept runner, which warms up
 * and runs one window at each rate. p99 is the median of the windows' p99s, with their range; the other percentiles
 * pool all windows. Each window also records the runner's and the fleet server's CPU per 1,000 updates.
 */
import { FleetProcess } from '../fleet/fleet-process.js';
import { percentile, spread, summarizeMicros, type Spread, type Summary } from '../stats.js';
import { formatNumber, formatRange, renderTable } from '../table.js';
import { UpdateWriter } from '../writer.js';
import type { RunnerProcess } from '../runner-process.js';
import { statsWhenDrained } from './engaged-runner.js';
import { takeTurns } from './rounds.js';
import type { ScenarioContext, ScenarioResult } from './scenario.js';

/** The two loads every implementation is measured at. */
export type LatencyLoad = 'half' | 'saturated';
const loads: readonly LatencyLoad[] = ['half', 'saturated'];

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
  /** The fleet server's CPU per 1,000 updates, per window: its work is the same whoever watches. */
  fleetCpuMsPer1000Events: Spread;
  /** Windows this implementation ran at this load and left out: 1 for the one that took the first turn, else 0. */
  windowsLeftOut: number;
}

/** The percentiles kept for the distribution chart. */
const chartPercentiles = [...Array.from({ length: 99 }, (_, i) => i + 1), 99.5, 99.9];

export async function latencyScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const clusters = ctx.quick ? 4 : 10;
  const objects = ctx.quick ? 20 : 100;
  const windowMs = ctx.quick ? 1500 : 10_000;
  const windows = ctx.quick ? 1 : 3;
  const warmupMs = ctx.quick ? 500 : 3000;
  const firstWarmupMs = ctx.quick ? 1000 : 10_000;
  const capacityMs = ctx.quick ? 1500 : 5000;
  const discardFirstTurn = true;
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
    const windowsOf = new Map<string, Record<LatencyLoad, LatencyWindow[]>>();
    const leftOut = new Map<string, number>();
    const rounds = { fleet, ctx, rounds: windows, clusters, errors, what: 'latency', discardFirstTurn };
    await takeTurns(rounds, async (runner, impl, round, first) => {
      const mine = windowsOf.get(impl.name) ?? { half: [], saturated: [] };
      windowsOf.set(impl.name, mine);
      for (const load of loads) {
        // A runner's first window warms it longer: it has compiled little of its code yet.
        const warmup = first && load === 'half' ? firstWarmupMs : warmupMs;
        const w = await measureWindow(fleet, runner, writer, rates[load], windowMs, warmup);
        if (round < 0) {
          leftOut.set(`${impl.name} ${load}`, (leftOut.get(`${impl.name} ${load}`) ?? 0) + 1);
          ctx.progress(`latency ${impl.name} ${load}, the scenario's first turn (left out): p99 ${formatNumber(w.p99Ms)} ms`);
          continue;
        }
        mine[load].push(w);
        ctx.progress(
          `latency ${impl.name} ${load}, round ${round + 1} of ${windows}: p99 ${formatNumber(w.p99Ms)} ms at ${formatNumber(w.rate, 0)} updates/s`,
        );
      }
    });
    for (const impl of ctx.impls) {
      const mine = windowsOf.get(impl.name);
      for (const load of loads) {
        // An implementation that failed part-way is reported only for the loads it finished in every round.
        if (mine && mine[load].length === windows) {
          const result = summarize(impl.name, load, clusters, rates[load], mine[load]);
          results.push({ ...result, windowsLeftOut: leftOut.get(`${impl.name} ${load}`) ?? 0 });
        }
      }
    }
  } finally {
    await writer.close();
    await fleet.close();
  }

  const header = ['load', 'impl', 'updates/s', 'p50 ms', 'p99 ms', 'p99 range', 'max ms', 'reconciles/update', 'CPU ms/1k ev', 'fleet CPU'];
  const rows = (['half', 'saturated'] as const).flatMap((load) =>
    ctx.impls.map((impl) => {
      const r = results.find((x) => x.impl === impl.name && x.load === load);
      return [
        load,
        impl.name,
        formatNumber(r?.achievedRate.median, 0),
        formatNumber(r?.latencyMs.p50),
        formatNumber(r?.windowP99Ms.median),
        formatRange(r?.windowP99Ms),
        formatNumber(r?.latencyMs.max),
        formatNumber(r?.reconcilesPerUpdate, 2),
        formatNumber(r?.cpuMsPer1000Events.median),
        formatNumber(r?.fleetCpuMsPer1000Events.median),
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
      firstWarmupMs,
      discardFirstTurn,
      capacityMs,
      writers,
      maxConcurrentReconciles: 4,
    },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `Event -> reconcile latency at half the fleet's capacity and at all of it (${formatNumber(capacity, 0)} updates/s; ${clusters} clusters x ${objects} objects, ${windows} x ${windowMs / 1000} s each; CPU: ms per 1,000 updates of the runner and the fleet server)`,
      header,
      rows,
    ),
  };
}

/** What one window of one implementation at one rate gave. */
interface LatencyWindow {
  /** Updates the servers accepted per second. */
  rate: number;
  written: number;
  skipped: number;
  reconciles: number;
  cpuMsPer1000Events: number;
  fleetCpuMsPer1000Events: number;
  p99Ms: number;
  /** Event → reconcile latencies, µs. */
  samples: number[];
}

/** A warm-up at `rate` (the runner may be fresh), then one window, drained before it is read. */
async function measureWindow(
  fleet: FleetProcess,
  runner: RunnerProcess,
  writer: UpdateWriter,
  rate: number,
  windowMs: number,
  warmupMs: number,
): Promise<LatencyWindow> {
  await writer.openLoop(rate, warmupMs);
  await statsWhenDrained(runner);
  const cpu0 = await runner.reset();
  const fleetCpu0 = (await fleet.stats()).cpuMs;
  const result = await writer.openLoop(rate, windowMs);
  const stats = await statsWhenDrained(runner);
  const fleetCpuMs = (await fleet.stats()).cpuMs - fleetCpu0;
  const per1000 = (ms: number): number => (ms / Math.max(1, result.written)) * 1000;
  return {
    rate: result.rate,
    written: result.written,
    skipped: result.skipped,
    reconciles: stats.reconciles,
    cpuMsPer1000Events: per1000(stats.cpuMs - cpu0),
    fleetCpuMsPer1000Events: per1000(fleetCpuMs),
    p99Ms: summarizeMicros(stats.samples).p99,
    samples: stats.samples,
  };
}

function summarize(
  impl: string,
  load: LatencyLoad,
  clusters: number,
  targetRate: number,
  windows: LatencyWindow[],
): Omit<LatencyResult, 'windowsLeftOut'> {
  const sorted = windows.flatMap((w) => w.samples).sort((a, b) => a - b);
  const written = windows.reduce((n, w) => n + w.written, 0);
  return {
    impl,
    load,
    clusters,
    targetRate,
    achievedRate: spread(windows.map((w) => w.rate)),
    skipped: windows.reduce((n, w) => n + w.skipped, 0),
    latencyMs: summarizeMicros(sorted),
    windowP99Ms: spread(windows.map((w) => w.p99Ms)),
    percentilesMs: chartPercentiles.map((p) => ({ p, ms: percentile(sorted, p) / 1000 })),
    reconcilesPerUpdate: windows.reduce((n, w) => n + w.reconciles, 0) / Math.max(1, written),
    cpuMsPer1000Events: spread(windows.map((w) => w.cpuMsPer1000Events)),
    fleetCpuMsPer1000Events: spread(windows.map((w) => w.fleetCpuMsPer1000Events)),
  };
}
