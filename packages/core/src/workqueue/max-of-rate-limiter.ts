/**
 * Combines rate limiters by taking the longest delay (client-go's MaxOfRateLimiter). Every limiter records each
 * failure, so each keeps its own state.
 */
import { WorkQueueOptionsError } from './errors.js';
import type { RateLimiter } from './types.js';

export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) throw new WorkQueueOptionsError('limiters', 'at least one rate limiter is needed');
    this.limiters = limiters;
  }

  when(item: T): number {
    let delay = 0;
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(item));
    return delay;
  }

  /** Forgets the item in every limiter. */
  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  forgetGroup(group: string): void {
    for (const limiter of this.limiters) limiter.forgetGroup?.(group);
  }

  /** The largest count any limiter keeps for the item. */
  numRequeues(item: T): number {
    let n = 0;
    for (const limiter of this.limiters) n = Math.max(n, limiter.numRequeues(item));
    return n;
  }
}
