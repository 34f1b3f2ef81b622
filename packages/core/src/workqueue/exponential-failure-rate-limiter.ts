/**
 * Per-item exponential backoff (client-go's ItemExponentialFailureRateLimiter): the n-th consecutive failure of an
 * item waits `base * 2^n`, capped at `max`. Defaults match client-go's controller default: 5 ms to 1000 s.
 */
import { checkDelayOption } from './errors.js';
import { defaultItemKey } from './item-key.js';
import type { RateLimiter } from './types.js';

/** Options of ExponentialFailureRateLimiter: base and maximum delay, and how an item is keyed. */
export interface ExponentialFailureRateLimiterOptions<T> {
  /** Delay of the first retry. Default 5 ms. */
  baseDelayMs?: number;
  /** Longest delay. Default 1,000,000 ms (1000 s). */
  maxDelayMs?: number;
  /** Identity for failure counts. Default: the item itself if a string, else its canonical JSON. */
  key?: (item: T) => string;
}

export class ExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<string, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly keyOf: (item: T) => string;

  constructor(options: ExponentialFailureRateLimiterOptions<T> = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 1_000_000;
    checkDelayOption('baseDelayMs', this.baseDelayMs);
    checkDelayOption('maxDelayMs', this.maxDelayMs);
    this.keyOf = options.key ?? defaultItemKey;
  }

  when(item: T): number {
    const key = this.keyOf(item);
    const exponent = this.failures.get(key) ?? 0;
    this.failures.set(key, exponent + 1);
    // 2 ** exponent becomes Infinity past 1023 and base * Infinity is NaN when base is 0: clamp both.
    const delay = this.baseDelayMs * 2 ** exponent;
    return Number.isFinite(delay) ? Math.min(delay, this.maxDelayMs) : this.baseDelayMs === 0 ? 0 : this.maxDelayMs;
  }

  /** Resets the item's failure count. */
  forget(item: T): void {
    // Called after every successful reconcile; while nothing is failing, that costs no key.
    if (this.failures.size > 0) this.failures.delete(this.keyOf(item));
  }

  /** How many times the item failed since it was last forgotten. */
  numRequeues(item: T): number {
    return this.failures.size === 0 ? 0 : (this.failures.get(this.keyOf(item)) ?? 0);
  }
}
