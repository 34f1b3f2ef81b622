/** Heap and RSS after forced GC, as runners answer a `memory` command (needs `node --expose-gc`). */
import type { ErrorReply, MemoryReply } from '../protocol.js';

export function memoryAfterGc(id: number): MemoryReply | ErrorReply {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return { id, type: 'error', message: 'memory needs node --expose-gc' };
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { id, type: 'memory', heapBytes: heapUsed, rssBytes: rss };
}
