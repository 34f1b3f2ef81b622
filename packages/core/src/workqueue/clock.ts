/**
 * The time source of queues and rate limiters. The default reads the monotonic `performance.now()` (wall-clock
 * jumps must not release or stall delayed items); tests may pass their own or use fake timers.
 */

export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Calls `fn` after `ms` milliseconds; returns a handle for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a pending setTimeout. */
  clearTimeout(handle: unknown): void;
}

/** The real clock: Date.now and the global timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
