/**
 * The rate limiter controllers use unless told otherwise (client-go's DefaultTypedControllerRateLimiter): the longer
 * of per-item exponential backoff (5 ms → 1000 s) and an overall 10 qps / burst 100 token bucket.
 */
import { BucketRateLimiter } from './bucket-rate-limiter.js';
import type { Clock } from './clock.js';
import { ExponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
import { MaxOfRateLimiter } from './max-of-rate-limiter.js';
import type { RateLimiter } from './types.js';

/** Options of defaultControllerRateLimiter: how an item is keyed for its backoff, and the clock. */
export interface DefaultControllerRateLimiterOptions<T> {
  /** Identity for per-item failure counts (use the queue's key function). */
  key?: (item: T) => string;
  clock?: Clock;
}

/** controller-runtime's default: the larger of a per-item exponential backoff (5 ms to 1000 s) and a 10/s, burst 100 bucket. */
export function defaultControllerRateLimiter<T>(options: DefaultControllerRateLimiterOptions<T> = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ExponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 1_000_000, ...(options.key ? { key: options.key } : {}) }),
    new BucketRateLimiter<T>({ qps: 10, burst: 100, ...(options.clock ? { clock: options.clock } : {}) }),
  );
}
