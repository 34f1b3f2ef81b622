/**
 * The deduplicating queue at the heart of every controller, with fairness across groups (clusters).
 *
 * As client-go's workqueue: an item waits at most once (dirty set), is never handed out while a worker processes it
 * (processing set), and an item added during processing is handed out again after `done`. Waiting items sit in one
 * FIFO per group and `get` takes from the groups in turn, so a cluster with 10,000
 * queued items delays a quiet cluster's item by at most one item per other busy cluster.
 */
import type { MetricsRecorder } from '../metrics/types.js';
import { noopMetrics } from '../metrics/types.js';
import type { Queue } from './types.js';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { Deque } from './deque.js';

/** Options of FairQueue: its name (for metrics), how items are keyed and grouped (by cluster), metrics, and the clock. */
export interface FairQueueOptions<T> {
  /** Names the queue in metrics. */
  name: string;
  /** Equal keys are the same item: deduplicated, and never processed twice at once. */
  key: (item: T) => string;
  /** The item's group, for fairness and metrics (the cluster of a Request). Default: one group, "". */
  group?: (item: T) => string;
  metrics?: MetricsRecorder;
  clock?: Clock;
}

/** One key's state; it exists while the key is dirty or processing (or both), and is dropped when neither. */
interface Entry<T> {
  item: T;
  readonly group: string;
  /** When the item entered its group's FIFO (for latency). */
  since: number;
  /** Must be processed: waiting, or re-added while processing. */
  dirty: boolean;
  /** Handed out and not yet `done`. */
  processing: boolean;
}

/** A pending `get`; `cancelled` once its signal aborted (it stays in the deque until reached, then is skipped). */
type Waiter<T> = ((item: T | undefined) => void) & { cancelled?: boolean };

/** One group's waiting keys, and whether it holds a place in the turns (a dropped group's keys are emptied). */
interface Group {
  readonly name: string;
  readonly keys: Deque<string>;
  inTurn: boolean;
}

export class FairQueue<T> implements Queue<T> {
  readonly name: string;
  private readonly keyOf: (item: T) => string;
  private readonly groupOf: (item: T) => string;
  private readonly metrics: MetricsRecorder;
  private readonly clock: Clock;

  /**
   * Keys that are dirty, processing or both (client-go keeps two sets; one map whose entries carry both flags is
   * one insert and one delete per item instead of two each, and Map deletes that shrink the table are garbage).
   */
  private readonly entries = new Map<string, Entry<T>>();
  private processingNow = 0;
  /**
   * Waiting keys per group, and the order in which groups take turns. Turns hold the groups themselves and pending
   * gets sit in a deque, not in Sets: a Set that fills and empties on every item rebuilds its table again and again,
   * and those tables outlive enough young collections to be promoted, then die: old-space garbage at event rates.
   */
  private readonly groups = new Map<string, Group>();
  private readonly turns = new Deque<Group>();
  private waitingCount = 0;

  private readonly waiters = new Deque<Waiter<T>>();
  /** Pending gets not cancelled. */
  private liveWaiters = 0;
  private readonly drainWaiters = new Set<() => void>();
  private shuttingDown = false;

  constructor(options: FairQueueOptions<T>) {
    this.name = options.name;
    this.keyOf = options.key;
    this.groupOf = options.group ?? (() => '');
    this.metrics = options.metrics ?? noopMetrics;
    this.clock = options.clock ?? systemClock;
  }

  add(item: T): void {
    if (this.shuttingDown) return;
    const key = this.keyOf(item);
    let entry = this.entries.get(key);
    if (entry?.dirty) return;
    if (entry) {
      entry.item = item;
      entry.dirty = true;
    } else {
      entry = { item, group: this.groupOf(item), since: 0, dirty: true, processing: false };
      this.entries.set(key, entry);
    }
    this.metrics.queueAdd(this.name, entry.group);
    if (entry.processing) return;
    this.enqueue(key, entry);
    this.dispatch();
  }

  len(): number {
    return this.waitingCount;
  }

  /** Items of `group` waiting now. */
  lenOf(group: string): number {
    return this.groups.get(group)?.keys.length ?? 0;
  }

  /** Items being processed now. */
  processingCount(): number {
    return this.processingNow;
  }

  /**
   * The next item, waiting for one if none is waiting. Resolves undefined once the queue shuts down or `signal`
   * aborts; an aborted call never takes an item, so nothing is lost.
   */
  get(signal?: AbortSignal): Promise<T | undefined> {
    if (this.shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    if (this.liveWaiters === 0 && this.waitingCount > 0) return Promise.resolve(this.take());
    if (!signal) return new Promise((resolve) => this.wait(resolve));
    return new Promise((resolve) => {
      const onAbort = (): void => {
        waiter.cancelled = true;
        this.liveWaiters--;
        this.forgetCancelled();
        resolve(undefined);
      };
      const waiter: Waiter<T> = (item) => {
        signal.removeEventListener('abort', onAbort);
        resolve(item);
      };
      this.wait(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  done(item: T): void {
    const key = this.keyOf(item);
    const entry = this.entries.get(key);
    if (!entry?.processing) return;
    entry.processing = false;
    this.processingNow--;
    if (!entry.dirty) this.entries.delete(key);
    else if (!this.shuttingDown) {
      this.enqueue(key, entry);
      this.dispatch();
    }
    if (this.processingNow === 0) for (const resolve of this.drainWaiters) resolve();
  }

  /** Drops the group's waiting items, and its items re-added while processing, so `done` will not requeue them. */
  dropGroup(group: string): void {
    const dropped = this.groups.get(group);
    if (dropped) {
      // Emptied, so its place in the turns (if any) is skipped; a later item of the group makes a new one.
      this.waitingCount -= dropped.keys.length;
      for (let key = dropped.keys.shift(); key !== undefined; key = dropped.keys.shift()) this.entries.delete(key);
      this.groups.delete(group);
    }
    // What is left of the group is being processed; only then is there anything to find.
    if (this.processingNow > 0) for (const entry of this.entries.values()) if (entry.group === group) entry.dirty = false;
    this.metrics.queueDepth(this.name, group, 0);
  }

  shutDown(): void {
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      for (const group of this.groups.keys()) this.metrics.queueDepth(this.name, group, 0);
      this.groups.clear();
      for (const [key, entry] of this.entries) {
        if (entry.processing) entry.dirty = false;
        else this.entries.delete(key);
      }
      this.waitingCount = 0;
    }
    for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) if (!waiter.cancelled) waiter(undefined);
    this.liveWaiters = 0;
    if (this.processingNow === 0) for (const resolve of this.drainWaiters) resolve();
  }

  /**
   * Shuts down and resolves once every item being processed is `done`. If `signal` aborts first it resolves
   * without waiting further (the items still processing are abandoned).
   */
  async shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.shutDown();
    if (this.processingNow === 0 || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        this.drainWaiters.delete(finish);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      this.drainWaiters.add(finish);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }

  /** Whether shutDown was called. */
  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private enqueue(key: string, entry: Entry<T>): void {
    let group = this.groups.get(entry.group);
    if (!group) {
      group = { name: entry.group, keys: new Deque<string>(), inTurn: false };
      this.groups.set(entry.group, group);
    }
    entry.since = this.clock.now();
    group.keys.push(key);
    this.waitingCount++;
    if (!group.inTurn) {
      group.inTurn = true;
      this.turns.push(group);
    }
    this.metrics.queueDepth(this.name, entry.group, group.keys.length);
  }

  private wait(waiter: Waiter<T>): void {
    this.waiters.push(waiter);
    this.liveWaiters++;
  }

  /** Cancelled gets wait in the deque until reached; when they outnumber the live ones, they go at once. */
  private forgetCancelled(): void {
    if (this.waiters.length <= 2 * this.liveWaiters + 64) return;
    const live: Waiter<T>[] = [];
    for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) if (!waiter.cancelled) live.push(waiter);
    for (const waiter of live) this.waiters.push(waiter);
  }

  /** Hands waiting items to waiting `get` calls, oldest call first. */
  private dispatch(): void {
    while (this.liveWaiters > 0 && this.waitingCount > 0) {
      const waiter = this.waiters.shift()!;
      if (waiter.cancelled) continue;
      this.liveWaiters--;
      waiter(this.take());
    }
  }

  /** Takes the next item round-robin across groups and marks it processing. Requires waitingCount > 0. */
  private take(): T {
    for (;;) {
      const group = this.turns.shift()!;
      if (group.keys.length === 0) {
        // A dropped group keeps its turn until reached; skip it.
        group.inTurn = false;
        continue;
      }
      const key = group.keys.shift()!;
      this.waitingCount--;
      // An emptied group keeps its (empty) deque until dropped: a cluster's next item would otherwise allocate one.
      if (group.keys.length > 0) this.turns.push(group);
      else group.inTurn = false;
      const entry = this.entries.get(key)!;
      entry.dirty = false;
      entry.processing = true;
      this.processingNow++;
      this.metrics.queueDepth(this.name, group.name, group.keys.length);
      this.metrics.queueLatency(this.name, group.name, Math.max(0, this.clock.now() - entry.since) / 1000);
      return entry.item;
    }
  }
}
