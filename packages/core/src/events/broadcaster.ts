/**
 * One cluster's event pipeline, as client-go's tools/events broadcaster: recorders hand events over synchronously;
 * a bounded queue and one background writer put them into the cluster as events.k8s.io/v1 Events. Repeats of an
 * event (same reporting controller, regarding, related, reason and action) within 6 minutes are one Event with a
 * `series`: the first repeat is written at once (count 2), later ones are coalesced into at most one series update per
 * `seriesUpdateIntervalMs`, and all pending counts are written by `stop()`. Writes per object are limited by the spam
 * filter. A full queue, a spam-limited event, a write that keeps failing, or an event after `stop()` is dropped and
 * counted (`eventDropped`), never thrown at the reconcile.
 */
import { hostname } from 'node:os';
import { isNotFound, isRetryable } from '../client/errors.js';
import type { Client } from '../client/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { formatMicroTime } from '../leaderelection/micro-time.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { noopMetrics, type EventDropReason, type MetricsRecorder } from '../metrics/types.js';
import type { KubeObjectLike } from '../object/types.js';
import {
  EVENTS,
  checkEventFields,
  checkReportingController,
  eventName,
  eventNamespace,
  fitNote,
  referenceTo,
  type EventObject,
} from './event-object.js';
import { SpamFilter, type SpamLimit } from './spam-filter.js';
import type { EventRecorder, EventType, RecordOptions } from './types.js';

/** Options of an EventBroadcaster: queue bound, spam limit, how often series counts are written and when a series ends, the flush timeout on stop, and the reporting instance. */
export interface EventBroadcasterOptions {
  /** Events waiting to be written; more are dropped. Default 1,000. */
  queueSize?: number;
  /** Per-object write limit. Default: a burst of 25, then one every 5 minutes. */
  spamLimit?: SpamLimit;
  /** Least time between two series updates of one Event. Default 30,000 ms. */
  seriesUpdateIntervalMs?: number;
  /** A series ends this long after its last repeat; the next occurrence starts a new Event. Default 6 minutes. */
  seriesFinishMs?: number;
  /** How long `stop()` may spend writing what is pending. Default 5,000 ms. */
  flushTimeoutMs?: number;
  /** `reportingInstance` of every Event. Default: the host name. */
  reportingInstance?: string;
}

interface Entry {
  readonly key: string;
  readonly spamKey: string;
  event: EventObject;
  count: number;
  /** Count as last written; 0 while the Event was never written. */
  written: number;
  lastObserved: number;
  lastWrite: number;
  queued: boolean;
}

const MAX_ATTEMPTS = 4;
const MAX_CACHED = 4096;

/** Writes the Events recorders produce into one cluster: a bounded queue, repeats folded into a series, one background writer. */
export class EventBroadcaster {
  private readonly client: Pick<Client, 'create' | 'patch'>;
  private readonly clusterName: ClusterName;
  private readonly log: Logger;
  private readonly metrics: MetricsRecorder;
  private readonly queueSize: number;
  private readonly seriesUpdateIntervalMs: number;
  private readonly seriesFinishMs: number;
  private readonly flushTimeoutMs: number;
  private readonly reportingInstance: string;
  private readonly spam: SpamFilter;
  /** Recent Events by aggregation key; the map's order is least recently observed first. */
  private readonly cache = new Map<string, Entry>();
  private readonly queue: Entry[] = [];
  /** Cuts the writes short once `stop` has waited `flushTimeoutMs`; made with the first write (most clusters have none). */
  private stopWritesController: AbortController | undefined;
  private draining: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly warned = new Set<string>();

  constructor(
    client: Pick<Client, 'create' | 'patch'>,
    options: EventBroadcasterOptions & { clusterName?: ClusterName; logger?: Logger; metrics?: MetricsRecorder } = {},
  ) {
    this.client = client;
    this.clusterName = options.clusterName ?? '';
    this.log = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? noopMetrics;
    this.queueSize = positive(options.queueSize ?? 1000, 'queueSize');
    this.seriesUpdateIntervalMs = positive(options.seriesUpdateIntervalMs ?? 30_000, 'seriesUpdateIntervalMs');
    this.seriesFinishMs = positive(options.seriesFinishMs ?? 360_000, 'seriesFinishMs');
    this.flushTimeoutMs = positive(options.flushTimeoutMs ?? 5_000, 'flushTimeoutMs');
    this.reportingInstance = (options.reportingInstance ?? hostname()).slice(0, 128) || 'unknown';
    this.spam = new SpamFilter(options.spamLimit);
  }

  /** A recorder whose events name `reportingController` (a qualified name, e.g. `example.com/mongodb-sync`). */
  recorderFor(reportingController: string): EventRecorder {
    checkReportingController(reportingController);
    return {
      event: (regarding, type, reason, note, options) => this.record(reportingController, regarding, type, reason, note, options),
    };
  }

  /** Writes what is pending (new Events, unwritten series counts) within `flushTimeoutMs`, then drops events. */
  async stop(): Promise<void> {
    if (this.stopped) return this.draining;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const e of this.cache.values()) if (e.written > 0 && e.count > e.written) this.enqueue(e, true);
    const deadline = setTimeout(() => this.abortWrites(), this.flushTimeoutMs);
    try {
      await this.drain();
    } finally {
      clearTimeout(deadline);
      this.abortWrites();
      for (const e of this.queue.splice(0)) this.drop(e, 'stopped');
      this.cache.clear();
    }
  }

  private get stopWrites(): AbortSignal {
    return (this.stopWritesController ??= new AbortController()).signal;
  }

  private abortWrites(): void {
    (this.stopWritesController ??= new AbortController()).abort();
  }

  private record(
    controller: string,
    regarding: KubeObjectLike,
    type: EventType,
    reason: string,
    note: string,
    options: RecordOptions = {},
  ): void {
    const action = options.action ?? reason;
    checkEventFields(type, reason, action);
    const ref = referenceTo(regarding, 'regarding');
    const related = options.related === undefined ? undefined : referenceTo(options.related, 'related');
    if (this.stopped) {
      this.metrics.eventDropped?.(this.clusterName, 'stopped');
      return;
    }
    const now = Date.now();
    const refKey = `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}/${ref.uid ?? ''}`;
    const relatedKey = related
      ? `${related.apiVersion}/${related.kind}/${related.namespace ?? ''}/${related.name}/${related.uid ?? ''}`
      : '';
    const key = JSON.stringify([controller, action, reason, refKey, relatedKey]);

    let entry = this.cache.get(key);
    if (entry && now - entry.lastObserved > this.seriesFinishMs) {
      this.cache.delete(key);
      entry = undefined;
    }
    if (entry) {
      entry.count++;
      entry.lastObserved = now;
      this.cache.delete(key); // most recently observed last
      this.cache.set(key, entry);
      // The first repeat turns the Event into a series at once; later counts wait for the interval (or stop()).
      if (entry.written === 1 && entry.count === 2) this.enqueue(entry, false);
      this.startTimer();
      return;
    }
    const at = new Date(now);
    entry = {
      key,
      spamKey: `${controller}|${refKey}`,
      count: 1,
      written: 0,
      lastObserved: now,
      lastWrite: 0,
      queued: false,
      event: {
        ...EVENTS,
        metadata: { name: eventName(ref, at), namespace: eventNamespace(ref) },
        eventTime: formatMicroTime(at),
        reportingController: controller,
        reportingInstance: this.reportingInstance,
        action,
        reason,
        note: fitNote(note),
        type,
        regarding: ref,
        ...(related ? { related } : {}),
      },
    };
    this.cache.set(key, entry);
    while (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.enqueue(entry, false);
    this.startTimer();
  }

  private enqueue(entry: Entry, flushing: boolean): void {
    if (entry.queued) return;
    if (this.queue.length >= this.queueSize) {
      // A new Event is lost; a series update stays pending and is tried again at the next interval.
      if (entry.written === 0) {
        this.cache.delete(entry.key);
        this.drop(entry, 'queue_full');
      }
      return;
    }
    entry.queued = true;
    this.queue.push(entry);
    if (!flushing) void this.drain();
  }

  private drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        for (let entry = this.queue.shift(); entry; entry = this.queue.shift()) {
          entry.queued = false;
          if (this.stopWrites.aborted) {
            this.drop(entry, 'stopped');
            continue;
          }
          await this.write(entry);
        }
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }

  private async write(entry: Entry): Promise<void> {
    const now = Date.now();
    // Flushing series counts on stop is exempt: it is bounded by the Events already written.
    const flushingSeries = this.stopped && entry.written > 0;
    if (!flushingSeries && !this.spam.take(entry.spamKey, now)) {
      if (entry.written === 0) {
        this.cache.delete(entry.key);
        this.drop(entry, 'spam');
      }
      return; // a series update waits for the next interval
    }
    const count = entry.count;
    const series = count > 1 ? { count, lastObservedTime: formatMicroTime(new Date(entry.lastObserved)) } : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        if (entry.written === 0) {
          const body = { ...entry.event, ...(series ? { series } : {}) };
          const created = await this.client.create(body, { signal: this.stopWrites });
          entry.event = {
            ...entry.event,
            metadata: { ...entry.event.metadata, name: created.metadata?.name ?? entry.event.metadata.name },
          };
        } else {
          await this.client.patch(
            EVENTS,
            { namespace: entry.event.metadata.namespace, name: entry.event.metadata.name },
            { type: 'merge', body: { series } },
            { signal: this.stopWrites },
          );
        }
        const first = entry.written === 0;
        entry.written = count;
        entry.lastWrite = Date.now();
        // Repeats that came while the Event was being created make it a series at once, as the first repeat does.
        if (first && count === 1 && entry.count > 1) this.enqueue(entry, this.stopped);
        return;
      } catch (err) {
        if (entry.written > 0 && isNotFound(err)) {
          // The Event expired on the server (its TTL): start it again, carrying the series.
          entry.written = 0;
          entry.event = { ...entry.event, metadata: { ...entry.event.metadata, name: eventName(entry.event.regarding, new Date()) } };
          continue;
        }
        if (this.stopWrites.aborted || !isRetryable(err) || attempt >= MAX_ATTEMPTS) {
          this.warnOnce(err);
          if (entry.written === 0) this.cache.delete(entry.key);
          this.drop(entry, this.stopWrites.aborted ? 'stopped' : 'write_failed');
          return;
        }
        await backoff(attempt, this.stopWrites);
      }
    }
  }

  /** Every interval: write series counts that grew, forget finished series and full spam buckets. */
  private startTimer(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const e of [...this.cache.values()]) {
        if (e.written > 0 && e.count > e.written && now - e.lastWrite >= this.seriesUpdateIntervalMs) this.enqueue(e, false);
        else if (!e.queued && e.count === e.written && now - e.lastObserved > this.seriesFinishMs) this.cache.delete(e.key);
      }
      this.spam.prune(now);
      if (this.cache.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    }, this.seriesUpdateIntervalMs);
    this.timer.unref();
  }

  private drop(entry: Entry, reason: EventDropReason): void {
    this.metrics.eventDropped?.(this.clusterName, reason);
    this.log.debug('event dropped', { reason, eventReason: entry.event.reason, regarding: entry.event.regarding.name });
  }

  private warnOnce(err: unknown): void {
    const what = err instanceof Error ? err.name : typeof err;
    const fields = { error: err instanceof Error ? err.message : String(err) };
    if (this.warned.has(what)) this.log.debug('writing an event failed; it is dropped', fields);
    else {
      this.warned.add(what);
      this.log.warn('writing an event failed; it is dropped (further failures of this kind are logged at debug)', fields);
    }
  }
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`events: ${name} must be a positive number, got ${value}`);
  return value;
}

/** 250 ms, 500 ms, 1 s … between attempts; resolves early when `signal` aborts. */
function backoff(attempt: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, 250 * 2 ** (attempt - 1));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
