/**
 * Loaded into a runner with `node --import` when `MCR_BENCH_GC_TRACE=<dir>` is set: records every garbage collection
 * the process makes (when it started, how long the thread was held, which kind: minor, major, incremental, weak
 * callbacks; V8's flags, which say whether it was forced or for external memory; the young generation's size and the
 * old space's use right after) and writes `<dir>/gc-<pid>.json` when the process exits, to tell which collections make
 * a latency tail and what is promoted. On Linux it adds the main thread's scheduler figures (CPU time, time spent
 * runnable but waiting for a core, involuntary switches): on shared cores, a tail can be the thread not running.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

const dir = process.env['MCR_BENCH_GC_TRACE'];
if (dir) {
  const collections: { startMs: number; durationMs: number; kind: string; flags: number; youngBytes: number; oldUsedBytes: number }[] = [];
  const record = (entries: readonly PerformanceEntry[]): void => {
    for (const entry of entries) {
      const detail = (entry as typeof entry & { detail?: { kind?: number; flags?: number } }).detail;
      const spaces = getHeapSpaceStatistics();
      collections.push({
        startMs: entry.startTime,
        durationMs: entry.duration,
        kind: KINDS[detail?.kind ?? 0] ?? String(detail?.kind),
        flags: detail?.flags ?? 0,
        youngBytes: spaces.find((s) => s.space_name === 'new_space')?.space_size ?? 0,
        oldUsedBytes: spaces.find((s) => s.space_name === 'old_space')?.space_used_size ?? 0,
      });
    }
  };
  const observer = new PerformanceObserver((list) => record(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    // Entries not yet handed to the callback (Node 24 delivers them later) are taken here.
    record(observer.takeRecords());
    observer.disconnect();
    writeFileSync(
      join(dir, `gc-${process.pid}.json`),
      JSON.stringify({ argv: process.argv.slice(1), collections, scheduler: scheduler() }),
    );
  });
}

/** The main thread's CPU and waiting time (ms) and its switches, from /proc; undefined where there is no /proc. */
function scheduler(): { cpuMs: number; runnableWaitMs: number; involuntarySwitches: number; voluntarySwitches: number } | undefined {
  try {
    const [cpuNs = 0, waitNs = 0] = readFileSync('/proc/self/schedstat', 'utf8').trim().split(' ').map(Number);
    const status = new Map(
      readFileSync('/proc/self/status', 'utf8')
        .split('\n')
        .map((line) => line.split(':').map((part) => part.trim()) as [string, string]),
    );
    return {
      cpuMs: cpuNs / 1e6,
      runnableWaitMs: waitNs / 1e6,
      involuntarySwitches: Number(status.get('nonvoluntary_ctxt_switches')),
      voluntarySwitches: Number(status.get('voluntary_ctxt_switches')),
    };
  } catch {
    return undefined;
  }
}
