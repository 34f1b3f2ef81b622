/**
 * Retries an item quickly a few times, then slowly (client-go's ItemFastSlowRateLimiter): the first
 * `maxFastAttempts` failures wait `fastDelayMs`, later ones `slowDelayMs`.
 */
import { checkDelayOption, WorkQueueOptionsError } from './errors.js';
import { defaultItemKey } from './item-key.js';
import type { RateLimiter } from './types.js';

/** Options of FastSlowRateLimiter: the fast delay, the slow delay, how many fast attempts come first, and how an item is keyed. */
export interface FastSlowRateLimiterOptions<T> {
  fastDelayMs: number;
  slowDelayMs: number;
  maxFastAttempts: number;
  /** Identity for failure counts. Default: the item itself if a string, else its canonical JSON. */
  key?: (item: T) => string;
}

export class FastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<string, number>();
  private readonly keyOf: (item: T) => string;

  constructor(private readonly options: FastSlowRateLimiterOptions<T>) {
    checkDelayOption('fastDelayMs', options.fastDelayMs);
    checkDelayOption('slowDelayMs', options.slowDelayMs);
    if (!Number.isInteger(options.maxFastAttempts) || options.maxFastAttempts < 0) {
      throw new WorkQueueOptionsError('maxFastAttempts', `must be an integer ≥ 0, got ${String(options.maxFastAttempts)}`);
    }
    this.keyOf = options.key ?? defaultItemKey;
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const attempts = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempts);
    return attempts <= this.options.maxFastAttempts ? this.options.fastDelayMs : this.options.slowDelayMs;
  }

  /** Resets the item's attempt count. */
  forget(item: T): void {
    this.failures.delete(this.keyOf(item));
  }

  /** How many times the item was requeued since it was last forgotten. */
  numRequeues(item: T): number {
    return this.failures.get(this.keyOf(item)) ?? 0;
  }
}
