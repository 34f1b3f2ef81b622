/**
 * An overall token bucket (client-go's BucketRateLimiter): retries of all items together get at most `qps` per
 * second after an initial `burst`. Each call reserves a token, possibly in the future, and returns the wait until it.
 * Defaults match client-go's controller default: 10 qps, burst 100.
 */
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { WorkQueueOptionsError } from './errors.js';
import type { RateLimiter } from './types.js';

/** Options of BucketRateLimiter: tokens per second and bucket size (client-go's qps and burst). */
export interface BucketRateLimiterOptions {
  /** Tokens added per second. Default 10. */
  qps?: number;
  /** Bucket size: how many retries may go at once. Default 100. */
  burst?: number;
  clock?: Clock;
}

export class BucketRateLimiter<T = unknown> implements RateLimiter<T> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  /** Tokens available at `last`; negative when tokens are reserved ahead. */
  private tokens: number;
  private last: number;

  constructor(options: BucketRateLimiterOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    if (typeof this.qps !== 'number' || !Number.isFinite(this.qps) || this.qps <= 0) {
      throw new WorkQueueOptionsError('qps', `must be a finite number > 0, got ${String(this.qps)}`);
    }
    if (!Number.isInteger(this.burst) || this.burst < 1) {
      throw new WorkQueueOptionsError('burst', `must be an integer ≥ 1, got ${String(this.burst)}`);
    }
    this.clock = options.clock ?? systemClock;
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** The bucket counts no failures per item. */
  forget(_item: T): void {}

  /** Always 0: a token bucket keeps no per-item count. */
  numRequeues(_item: T): number {
    return 0;
  }
}
