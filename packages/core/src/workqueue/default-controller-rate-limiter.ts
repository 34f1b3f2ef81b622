/**
 * The rate limiter controllers use unless told otherwise (client-go's DefaultTypedControllerRateLimiter): the longer
 * of per-item exponential backoff (5 ms → 1000 s) and an overall 10 qps / burst 100 token bucket.
 */
import { BucketRateLimiter } from './bucket-rate-limiter.js';
import type { Clock } from './clock.js';
import { ExponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
import { MaxOfRateLimiter } from './max-of-rate-limiter.js';
import type { RateLimiter } from './types.js';

export interface DefaultControllerRateLimiterOptions<T> {
  /** Identity for per-item failure counts (use the queue's key function). */
  key?: (item: T) => string;
  clock?: Clock;
}

export function defaultControllerRateLimiter<T>(options: DefaultControllerRateLimiterOptions<T> = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ExponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 1_000_000, ...(options.key ? { key: options.key } : {}) }),
    new BucketRateLimiter<T>({ qps: 10, burst: 100, ...(options.clock ? { clock: options.clock } : {}) }),
  );
}
