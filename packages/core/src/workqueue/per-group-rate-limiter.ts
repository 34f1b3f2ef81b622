/**
 * One rate limiter per group (per cluster). An overall token bucket protects an API server from retry storms; in a
 * fleet every cluster has its own API server, and one shared bucket lets a cluster with
 * thousands of failing items push every other cluster's retries back by minutes. Keyed by group, each cluster
 * gets its own bucket, and a dropped group's limiter is discarded.
 */
import type { RateLimiter } from './types.js';

export class PerGroupRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters = new Map<string, RateLimiter<T>>();

  constructor(
    private readonly groupOf: (item: T) => string,
    private readonly newLimiter: (group: string) => RateLimiter<T>,
  ) {}

  when(item: T): number {
    const group = this.groupOf(item);
    let limiter = this.limiters.get(group);
    if (!limiter) this.limiters.set(group, (limiter = this.newLimiter(group)));
    return limiter.when(item);
  }

  /** Forgets the item in its group's limiter. */
  forget(item: T): void {
    this.limiters.get(this.groupOf(item))?.forget(item);
  }

  /** The item's count in its group's limiter. */
  numRequeues(item: T): number {
    return this.limiters.get(this.groupOf(item))?.numRequeues(item) ?? 0;
  }

  forgetGroup(group: string): void {
    this.limiters.delete(group);
  }

  /** Groups with a limiter now. */
  get groups(): number {
    return this.limiters.size;
  }
}
