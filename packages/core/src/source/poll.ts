/**
 * Waiting for a condition that has no notification of its own (a registration's `hasSynced`), the way client-go's
 * WaitForCacheSync does: check often at first, then settle at a modest interval, and give up when the signal aborts.
 */
import { sleep } from '../signal/wait.js';

export interface PollOptions {
  /** First pause between checks. Default 5 ms. */
  initialIntervalMs?: number;
  /** Longest pause between checks. Default 100 ms (client-go's sync poll period). */
  maxIntervalMs?: number;
}

/** Resolves true once `condition()` is true, false if `signal` aborts (or `condition` says to stop) first. */
export async function pollUntil(condition: () => boolean | 'stop', signal: AbortSignal, options: PollOptions = {}): Promise<boolean> {
  const max = options.maxIntervalMs ?? 100;
  let interval = options.initialIntervalMs ?? 5;
  for (;;) {
    const state = condition();
    if (state === 'stop') return false;
    if (state) return true;
    if (!(await sleep(interval, signal))) return false;
    interval = Math.min(max, interval * 2);
  }
}
