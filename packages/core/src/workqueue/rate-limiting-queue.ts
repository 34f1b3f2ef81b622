/**
 * The work queue controllers use: a {@link FairQueue} plus delayed adds (one timer for all delayed items, armed
 * for the earliest) and rate-limited retries, with the per-cluster clean-up a multi-cluster controller needs
 * (`dropGroup`).
 */
import type { MetricsRecorder } from '../metrics/types.js';
import { noopMetrics } from '../metrics/types.js';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter.js';
import { DelayHeap } from './delay-heap.js';
import { InvalidDelayError } from './errors.js';
import { FairQueue } from './fair-queue.js';
import type { RateLimiter, RateLimitingQueue } from './types.js';

/** Options of a RateLimitingWorkQueue: its name (for metrics), how items are keyed and grouped (fairness), its rate limiter, metrics, and the clock. */
export interface RateLimitingQueueOptions<T> {
  /** Names the queue in metrics and errors. */
  name: string;
  /** Equal keys are the same item: deduplicated, never processed twice at once, one failure count. */
  key: (item: T) => string;
  /** The item's group (its cluster): `get` takes from groups in turn; `dropGroup` removes one. Default: one group. */
  group?: (item: T) => string;
  /** Default: {@link defaultControllerRateLimiter} keyed by `key`. */
  rateLimiter?: RateLimiter<T>;
  metrics?: MetricsRecorder;
  clock?: Clock;
}

/** setTimeout fires at once for delays above 2^31-1 ms (~24.8 days); longer waits re-arm in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class RateLimitingWorkQueue<T> implements RateLimitingQueue<T> {
  readonly name: string;
  private readonly queue: FairQueue<T>;
  private readonly delayed = new DelayHeap<T>();
  private readonly keyOf: (item: T) => string;
  private readonly groupOf: (item: T) => string;
  private readonly rateLimiter: RateLimiter<T>;
  private readonly metrics: MetricsRecorder;
  private readonly clock: Clock;
  /** Items with a failure count, per group, so `dropGroup` can make the rate limiter forget them. */
  private readonly failing = new Map<string, Map<string, T>>();
  private timer: unknown;
  private timerAt = Infinity;

  constructor(options: RateLimitingQueueOptions<T>) {
    this.name = options.name;
    this.keyOf = options.key;
    this.groupOf = options.group ?? (() => '');
    this.metrics = options.metrics ?? noopMetrics;
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ key: options.key, clock: this.clock });
    this.queue = new FairQueue<T>({ name: this.name, key: this.keyOf, group: this.groupOf, metrics: this.metrics, clock: this.clock });
  }

  add(item: T): void {
    this.queue.add(item);
  }

  len(): number {
    return this.queue.len();
  }

  /** Items of `group` waiting now (not counting delayed or processing ones). */
  lenOf(group: string): number {
    return this.queue.lenOf(group);
  }

  /** Items waiting for their delay. */
  delayedLen(): number {
    return this.delayed.size;
  }

  get(signal?: AbortSignal): Promise<T | undefined> {
    return this.queue.get(signal);
  }

  done(item: T): void {
    this.queue.done(item);
  }

  /**
   * Adds the item once `delayMs` has passed; if an equal item is already delayed, the earlier time wins. A delay ≤ 0
   * adds it now. Throws {@link InvalidDelayError} for NaN or infinite delays.
   */
  addAfter(item: T, delayMs: number): void {
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs)) throw new InvalidDelayError(this.name, delayMs);
    if (this.queue.isShuttingDown()) return;
    if (delayMs <= 0) {
      this.queue.add(item);
      return;
    }
    this.delayed.push(this.keyOf(item), this.groupOf(item), item, this.clock.now() + delayMs);
    this.arm();
  }

  addRateLimited(item: T): void {
    if (this.queue.isShuttingDown()) return;
    const delay = this.rateLimiter.when(item);
    const group = this.groupOf(item);
    let items = this.failing.get(group);
    if (!items) this.failing.set(group, (items = new Map<string, T>()));
    items.set(this.keyOf(item), item);
    this.metrics.queueRetry(this.name, group);
    this.addAfter(item, delay);
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
    const group = this.groupOf(item);
    const items = this.failing.get(group);
    if (items?.delete(this.keyOf(item)) && items.size === 0) this.failing.delete(group);
  }

  /** How many times the item failed since it was last forgotten (its rate limiter's count). */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  dropGroup(group: string): void {
    this.queue.dropGroup(group);
    this.delayed.removeGroup(group);
    for (const item of this.failing.get(group)?.values() ?? []) this.rateLimiter.forget(item);
    this.failing.delete(group);
    this.rateLimiter.forgetGroup?.(group);
    this.arm();
  }

  shutDown(): void {
    this.stopDelays();
    this.queue.shutDown();
  }

  /** Shuts down and resolves once items being processed are done (or `signal` aborts). Delayed items are dropped. */
  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.stopDelays();
    return this.queue.shutDownWithDrain(signal);
  }

  /** Whether shutDown or shutDownWithDrain was called. */
  isShuttingDown(): boolean {
    return this.queue.isShuttingDown();
  }

  private stopDelays(): void {
    this.delayed.clear();
    this.failing.clear();
    this.arm();
  }

  /** Keeps exactly one timer, due when the earliest delayed item is ready. */
  private arm(): void {
    const next = this.delayed.peekReadyAt() ?? Infinity;
    if (next === this.timerAt) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Infinity) return;
    const wait = Math.min(Math.max(0, next - this.clock.now()), MAX_TIMER_MS);
    this.timer = this.clock.setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    for (const item of this.delayed.popReady(this.clock.now())) this.queue.add(item);
    this.arm();
  }
}

/**
 * A deduplicating, delaying, rate-limited queue that is fair across groups.
 *
 * @example
 * const q = newRateLimitingQueue<string>({ name: 'jobs', key: (s) => s });
 * q.add('a');
 * const item = await q.get(signal); // 'a'
 * try { work(item) } catch { q.addRateLimited(item) } finally { q.done(item) }
 */
export function newRateLimitingQueue<T>(options: RateLimitingQueueOptions<T>): RateLimitingWorkQueue<T> {
  return new RateLimitingWorkQueue<T>(options);
}
