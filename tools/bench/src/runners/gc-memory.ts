/**
 * Heap and RSS after forced GC, as runners answer a `memory` command (needs `node --expose-gc`). With
 * `MCR_BENCH_HEAP_SNAPSHOT=<dir>` set, each answer also writes the heap as `<dir>/heap-<pid>.heapsnapshot` (the last
 * reading of a run is kept): what the engaged clusters hold, for Chrome DevTools (Memory, Load).
 */
import { writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';
import type { ErrorReply, MemoryReply } from '../protocol.js';

export function memoryAfterGc(id: number): MemoryReply | ErrorReply {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return { id, type: 'error', message: 'memory needs node --expose-gc' };
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  const snapshotDir = process.env['MCR_BENCH_HEAP_SNAPSHOT'];
  if (snapshotDir) writeHeapSnapshot(join(snapshotDir, `heap-${process.pid}.heapsnapshot`));
  return { id, type: 'memory', heapBytes: heapUsed, rssBytes: rss };
}
