/**
 * Work queue contracts (client-go's workqueue): a deduplicating queue where an item is never handed out while it is
 * being processed, with delayed and rate-limited adds, and fairness across groups (clusters).
 */

export interface Queue<T> {
  /** Adds the item unless an equal one is already waiting; an item being processed is re-queued after `done`. */
  add(item: T): void;
  /** Items waiting (not counting items being processed or delayed). */
  len(): number;
  /**
   * The next item, waiting for one if the queue is empty; undefined once the queue shuts down or `signal` aborts
   * (an aborted call takes no item, so nothing is lost).
   */
  get(signal?: AbortSignal): Promise<T | undefined>;
  /** Marks processing finished; the item becomes available again if it was added meanwhile. */
  done(item: T): void;
  /** Stops handing out items; waiting `get` calls resolve undefined. Items waiting are abandoned. */
  shutDown(): void;
  /**
   * Stops accepting items and resolves once every item being processed is done, or as soon as `signal` aborts
   * (abandoning what is still in flight).
   */
  shutDownWithDrain(signal?: AbortSignal): Promise<void>;
  /** Whether shutDown or shutDownWithDrain was called. */
  isShuttingDown(): boolean;
}

export interface DelayingQueue<T> extends Queue<T> {
  /** Adds the item after `delayMs`; an earlier pending delay for an equal item wins. */
  addAfter(item: T, delayMs: number): void;
}

export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  /** Adds the item after the rate limiter's delay for it. */
  addRateLimited(item: T): void;
  /** Resets the item's failure count. */
  forget(item: T): void;
  /** How many times the item failed since it was last forgotten. */
  numRequeues(item: T): number;
  /** Drops every waiting and delayed item of a group (a disengaged cluster) and forgets their failures. */
  dropGroup(group: string): void;
}

/** Decides how long to wait before an item is retried. */
export interface RateLimiter<T> {
  /** Delay in milliseconds before `item` may be processed again; records a failure. */
  when(item: T): number;
  /** Resets the item's failure count; call it when the item succeeded. */
  forget(item: T): void;
  /** How many times the item failed since it was last forgotten. */
  numRequeues(item: T): number;
  /** Drops all state kept for a group (a disengaged cluster). Optional: limiters without per-group state omit it. */
  forgetGroup?(group: string): void;
}
