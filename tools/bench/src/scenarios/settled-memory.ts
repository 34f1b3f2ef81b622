/**
 * A runner's heap and RSS after forced GC, as the median of three readings some time apart: one reading can catch
 * the allocator before it handed freed pages back. Readings are 500 ms apart in a full run and 200 ms apart with
 * --quick, whose memory figures show that the path works rather than what it costs.
 */
import type { MemoryReply } from '../protocol.js';
import { spread } from '../stats.js';

export interface SettledMemory {
  heapBytes: number;
  rssBytes: number;
}

/** The pause before each reading. */
export function settlePauseMs(quick: boolean): number {
  return quick ? 200 : 500;
}

export async function settledMemory(read: () => Promise<MemoryReply>, quick: boolean): Promise<SettledMemory> {
  const readings: MemoryReply[] = [];
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, settlePauseMs(quick)));
    readings.push(await read());
  }
  return { heapBytes: spread(readings.map((r) => r.heapBytes)).median, rssBytes: spread(readings.map((r) => r.rssBytes)).median };
}
