/**
 * Event → reconcile latency at a target event rate (5,000 updates/s; 500 with --quick), open loop: the writer keeps
 * the rate whether or not the implementation keeps up, as a busy fleet does. Latency runs from the writer stamping
 * an update to the reconciler reading that version from its cache, so it includes the API server's write and watch
 * fan-out, which every implementation shares. Several windows after a warm-up; percentiles pool all windows, the
 * p99 range shows the spread between windows.
 */
import { FleetProcess } from '../fleet/fleet-process.js';
import { spread, summarizeMicros, type Spread, type Summary } from '../stats.js';
import { formatNumber, renderTable } from '../table.js';
import { UpdateWriter } from '../writer.js';
import { startWithMembers, statsWhenDrained } from './engaged-runner.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

export interface LatencyResult {
  impl: string;
  clusters: number;
  targetRate: number;
  /** Updates the servers accepted per second, per window. */
  achievedRate: Spread;
  /** Sends the writer skipped because the servers fell behind, over all windows. */
  skipped: number;
  latencyMs: Summary;
  /** p99 of each window, ms. */
  windowP99Ms: Spread;
  /** Reconciles per update written (below 1: updates coalesced by the queue). */
  reconcilesPerUpdate: number;
  cpuMsPer1000Events: Spread;
}

export async function latencyScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const clusters = ctx.quick ? 4 : 10;
  const objects = ctx.quick ? 20 : 100;
  const targetRate = ctx.quick ? 500 : 5000;
  const windowMs = ctx.quick ? 3000 : 10_000;
  const windows = ctx.quick ? 1 : 3;
  const warmupMs = ctx.quick ? 1000 : 3000;
  const fleet = await FleetProcess.start(clusters, objects);
  const results: LatencyResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  const writer = await UpdateWriter.create(fleet, clusters, objects);
  try {
    for (const impl of ctx.impls) {
      try {
        const runner = await startWithMembers(fleet, impl, clusters);
        try {
          await writer.openLoop(targetRate, warmupMs);
          await statsWhenDrained(runner);
          const rates: number[] = [];
          const p99s: number[] = [];
          const cpu: number[] = [];
          const all: number[] = [];
          let skipped = 0;
          let written = 0;
          let reconciles = 0;
          for (let w = 0; w < windows; w++) {
            const cpu0 = await runner.reset();
            const result = await writer.openLoop(targetRate, windowMs);
            const stats = await statsWhenDrained(runner);
            rates.push(result.rate);
            skipped += result.skipped;
            written += result.written;
            reconciles += stats.reconciles;
            cpu.push(((stats.cpuMs - cpu0) / Math.max(1, result.written)) * 1000);
            p99s.push(summarizeMicros(stats.samples).p99);
            all.push(...stats.samples);
          }
          const r: LatencyResult = {
            impl: impl.name,
            clusters,
            targetRate,
            achievedRate: spread(rates),
            skipped,
            latencyMs: summarizeMicros(all),
            windowP99Ms: spread(p99s),
            reconcilesPerUpdate: reconciles / Math.max(1, written),
            cpuMsPer1000Events: spread(cpu),
          };
          results.push(r);
          ctx.progress(
            `latency ${impl.name}: p50 ${formatNumber(r.latencyMs.p50)} ms, p99 ${formatNumber(r.latencyMs.p99)} ms at ${formatNumber(r.achievedRate.median, 0)} updates/s`,
          );
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

  const header = ['impl', 'updates/s', 'p50 ms', 'p99 ms', 'p99 range', 'max ms', 'reconciles/update', 'CPU ms/1k ev'];
  const rows = ctx.impls.map((impl) => {
    const r = results.find((x) => x.impl === impl.name);
    return [
      impl.name,
      formatNumber(r?.achievedRate.median, 0),
      formatNumber(r?.latencyMs.p50),
      formatNumber(r?.latencyMs.p99),
      r && windows > 1 ? `${formatNumber(r.windowP99Ms.min)}-${formatNumber(r.windowP99Ms.max)}` : '',
      formatNumber(r?.latencyMs.max),
      formatNumber(r?.reconcilesPerUpdate, 2),
      formatNumber(r?.cpuMsPer1000Events.median),
    ];
  });
  return {
    name: 'latency',
    title: 'Event to reconcile latency',
    params: { clusters, objectsPerCluster: objects, targetRate, windowMs, windows, warmupMs, maxConcurrentReconciles: 4 },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `Event -> reconcile latency at ${targetRate} updates/s target (${clusters} clusters x ${objects} objects, ${windows} x ${windowMs / 1000} s)`,
      header,
      rows,
    ),
  };
}
