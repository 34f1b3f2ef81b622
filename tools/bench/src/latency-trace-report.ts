/**
 * Reads what `MCR_BENCH_LATENCY_TRACE=<dir>` recorded (see latency-trace.ts) and prints where the latency of mcr's
 * slowest events went: before the controller or inside it, and which process's event loop was stalled meanwhile.
 * `node tools/bench/dist/latency-trace-report.js <dir>`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SplitEvent, Stall } from './latency-trace.js';
import { percentile } from './stats.js';

/** What the bench's processes are called in the report, by script name. */
const roles: Record<string, string> = {
  main: 'bench (writer)',
  'fleet-server': 'fleet (API servers)',
  'mcr-runner': 'mcr runner',
  'client-node-runner': 'client-node runner',
};

export interface TraceReport {
  events: number;
  /** Percentiles (ms) of the whole latency, the part before the controller and the part inside it. */
  percentiles: { p: number; totalMs: number; beforeMs: number; insideMs: number }[];
  /** The events at or above the total's p99: how many, and the mean of each part. */
  slowest: { events: number; thresholdMs: number; beforeMs: number; insideMs: number };
  /** Per process: its stalls, and how many of the slowest events were in flight during one of them. */
  processes: {
    role: string;
    pid: string;
    stalls: number;
    stalledMs: number;
    cpuInStallsMs: number;
    longestMs: number;
    slowestOverlapping: number;
  }[];
}

export function readTrace(dir: string): TraceReport {
  const files = readdirSync(dir);
  const events = files
    .filter((f) => /^split-\d+\.json$/.test(f))
    .flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as SplitEvent[]);
  const part = (pick: (e: SplitEvent) => number): number[] => events.map(pick).sort((a, b) => a - b);
  const total = part(([s, , r]) => r - s);
  const before = part(([s, c]) => c - s);
  const inside = part(([, c, r]) => r - c);
  const ms = (us: number): number => us / 1000;
  const threshold = percentile(total, 99);
  const slow = events.filter(([s, , r]) => r - s >= threshold);
  const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const processes = files
    .map((f) => /^stalls-(.+)-(\d+)\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([file, script, pid]) => {
      const stalls = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Stall[];
      const overlapping = slow.filter(([s, , r]) => stalls.some((x) => x.atUs < r && x.atUs + x.ms * 1000 > s)).length;
      return {
        role: roles[script!] ?? script!,
        pid: pid!,
        stalls: stalls.length,
        stalledMs: stalls.reduce((n, x) => n + x.ms, 0),
        cpuInStallsMs: stalls.reduce((n, x) => n + x.cpuMs, 0),
        longestMs: Math.max(0, ...stalls.map((x) => x.ms)),
        slowestOverlapping: overlapping,
      };
    });
  return {
    events: events.length,
    percentiles: [50, 90, 99, 99.9].map((p) => ({
      p,
      totalMs: ms(percentile(total, p)),
      beforeMs: ms(percentile(before, p)),
      insideMs: ms(percentile(inside, p)),
    })),
    slowest: {
      events: slow.length,
      thresholdMs: ms(threshold),
      beforeMs: ms(mean(slow.map(([s, c]) => c - s))),
      insideMs: ms(mean(slow.map(([, c, r]) => r - c))),
    },
    processes,
  };
}

function main(): void {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: latency-trace-report <dir written by MCR_BENCH_LATENCY_TRACE>\n');
    process.exit(2);
  }
  let r: TraceReport;
  try {
    r = readTrace(dir);
  } catch (err) {
    process.stderr.write(`latency-trace-report: cannot read ${dir}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  if (r.events === 0) {
    process.stderr.write(`latency-trace-report: no mcr events in ${dir} (was MCR_BENCH_LATENCY_TRACE set to it, and did mcr run?)\n`);
    process.exit(1);
  }
  const f = (n: number): string => n.toFixed(1);
  const out: string[] = [`mcr: ${r.events} events (writer stamp -> controller -> reconciled)`];
  for (const p of r.percentiles)
    out.push(`  p${p.p}: total ${f(p.totalMs)} ms, before the controller ${f(p.beforeMs)} ms, inside it ${f(p.insideMs)} ms`);
  out.push(
    `  the slowest 1% (${r.slowest.events} events, >= ${f(r.slowest.thresholdMs)} ms): on average ${f(r.slowest.beforeMs)} ms before the controller, ${f(r.slowest.insideMs)} ms inside it`,
  );
  out.push('event-loop stalls of 10 ms or more, per process:');
  for (const p of r.processes) {
    out.push(
      `  ${p.role} (pid ${p.pid}): ${p.stalls} stalls, ${f(p.stalledMs)} ms in all with ${f(p.cpuInStallsMs)} ms of CPU, longest ${f(p.longestMs)} ms; in flight during one: ${p.slowestOverlapping} of the slowest 1%`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main();
