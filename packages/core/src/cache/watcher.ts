/**
 * The list-then-watch loop behind every informer, written as an explicit state machine in the style of kube-rs's
 * `watcher`: `empty → listing(continue) → listed(rv) → watching(rv)`.
 *
 * It lists in pages, watches with bookmarks and a server timeout, and resumes from the last resourceVersion it saw.
 * A 410 (expired resourceVersion or continue token) starts a fresh list; the consumer gets `init`, the objects as
 * `initApply` and `initDone`, and swaps its store at `initDone` so it can deliver the difference. Every other failure
 * is delivered as an `error` event with the delay before the retry (jittered exponential backoff); the loop never
 * throws and never gives up. It ends only when its signal aborts (or the consumer stops iterating). Events reach the
 * consumer through `forEach` (pushed; what informers use, no promise per event) or async iteration (pulled).
 */
import { isGone } from '../client/errors.js';
import type { KubeObject } from '../object/types.js';
import { deadline } from '../signal/deadline.js';
import { linkedAbort } from '../signal/linked.js';
import { sleep } from '../signal/wait.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import type { ListWatcher, RawWatchEvent } from './list-watcher.js';
import {
  InitialListFailed,
  ResourceGone,
  WatchErrorEvent,
  WatchFailed,
  WatchStartFailed,
  type WatcherError,
  type WatchStatus,
} from './watcher-errors.js';

/** Where the watcher is. `listing` keeps the continue token so a failed page is retried, not the whole list. */
export type WatcherState =
  | { readonly phase: 'empty' }
  | { readonly phase: 'listing'; readonly continueToken?: string; readonly pages: number }
  | { readonly phase: 'listed'; readonly resourceVersion: string }
  | { readonly phase: 'watching'; readonly resourceVersion: string };

/** What a Watcher delivers: each (re)list as `init`, `initApply`… and `initDone`, then `apply` and `delete` from the watch, and `watching`/`bookmark` progress. */
export type WatcherEvent<T extends KubeObject = KubeObject> =
  /** A (re)list starts: buffer the `initApply` objects that follow. */
  | { readonly type: 'init' }
  | { readonly type: 'initApply'; readonly object: T }
  /** The list is complete: replace the store with the buffered objects. */
  | { readonly type: 'initDone'; readonly resourceVersion: string }
  | { readonly type: 'apply'; readonly object: T }
  | { readonly type: 'delete'; readonly object: T }
  /** A watch stream is open (health signal: the watcher has recovered). */
  | { readonly type: 'watching'; readonly resourceVersion: string }
  /** The server confirmed progress up to this resourceVersion without a change. */
  | { readonly type: 'bookmark'; readonly resourceVersion: string }
  /** Something failed; the watcher retries on its own after `retryInMs`. */
  | { readonly type: 'error'; readonly error: WatcherError; readonly retryInMs: number };

/** Where a watcher's events go; a promise it returns is awaited before the next event. */
type Deliver<T extends KubeObject> = (event: WatcherEvent<T>) => void | Promise<void> | undefined;

type Failure = { error: WatcherError; retryInMs: number };

/** Options of a Watcher: list page size, watch timeouts and stall detection, and the backoff between attempts. */
export interface WatcherOptions {
  /**
   * List page size. Default 5,000: each page is one round trip, and a page's answer is bounded by the transport's
   * `maxResponseBytes` whatever its size (objects are buffered until the list is whole either way).
   */
  pageSize?: number;
  /** Server-side watch timeout. Default 290 s, shortened by up to `timeoutJitter` so watches do not reconnect in step. */
  timeoutSeconds?: number;
  /** Fraction of `timeoutSeconds` to shave off at random. Default 0.1. */
  timeoutJitter?: number;
  /**
   * How long past `timeoutSeconds` the watcher waits before it gives up on a stream itself. Guards against a peer
   * that vanished without closing the connection (a silent stall). Default 30 s.
   */
  stallGraceMs?: number;
  /**
   * A stream that ends cleanly sooner than this without delivering anything counts as a failure, so a server that
   * closes watches at once is retried with backoff instead of in a hot loop. Default 1 s.
   */
  minWatchMs?: number;
  /** Retry policy for failures other than 410. */
  backoff?: BackoffOptions;
  /** Injected for tests; default `Math.random`. */
  random?: () => number;
}

/**
 * Watches what `source` lists. Iterate it once; abort `signal` to stop (breaking out of the loop also stops it, but
 * only takes effect at the next event, so prefer the signal).
 */
export class Watcher<T extends KubeObject = KubeObject> implements AsyncIterable<WatcherEvent<T>> {
  private current: WatcherState = { phase: 'empty' };
  /**
   * Where a running watch has got to. Kept apart from `current` so that an event costs no new state object; `state`
   * makes one when asked.
   */
  private watchedRv = '';
  private iterated = false;
  private readonly backoff: Backoff;
  /** The last watch ended with "too large resource version" and nothing was delivered since. */
  private tooLargeBefore = false;
  private readonly pageSize: number;
  private readonly timeoutSeconds: number;
  private readonly timeoutJitter: number;
  private readonly stallGraceMs: number;
  private readonly minWatchMs: number;
  private readonly random: () => number;

  constructor(
    private readonly source: ListWatcher,
    private readonly signal: AbortSignal,
    options: WatcherOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 5_000;
    this.timeoutSeconds = options.timeoutSeconds ?? 290;
    this.timeoutJitter = options.timeoutJitter ?? 0.1;
    this.stallGraceMs = options.stallGraceMs ?? 30_000;
    this.minWatchMs = options.minWatchMs ?? 1_000;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff({ random: this.random, ...options.backoff });
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) throw new RangeError(`invalid pageSize ${this.pageSize}`);
    if (!(this.timeoutSeconds >= 1)) throw new RangeError(`invalid timeoutSeconds ${this.timeoutSeconds}`);
  }

  /** The state now; `resourceVersion` is where the next watch resumes. */
  get state(): WatcherState {
    const current = this.current;
    if (current.phase !== 'watching' || current.resourceVersion === this.watchedRv) return current;
    return (this.current = { phase: 'watching', resourceVersion: this.watchedRv });
  }

  /**
   * Delivers every event, from the initial list on, to `deliver` until the watcher is stopped; resolves then. A
   * `deliver` that returns a promise is awaited before the next event (backpressure); one that returns nothing costs
   * no promise per event, which is how informers consume it. A watcher runs once: iterate it or call this, not both.
   */
  forEach(deliver: (event: WatcherEvent<T>) => void | Promise<void>): Promise<void> {
    this.claim();
    return this.run(this.signal, deliver);
  }

  /**
   * The events, as an async iterator with a generator's pacing: nothing runs ahead of `next()`. One `next()` at a time,
   * as `for await` calls it.
   */
  [Symbol.asyncIterator](): AsyncIterator<WatcherEvent<T>> {
    this.claim();
    // A consumer that stops iterating aborts in-flight requests too, so the loop is not left parked on a socket.
    const stop = linkedAbort(this.signal);
    let waiting: { resolve: (result: IteratorResult<WatcherEvent<T>>) => void; reject: (err: unknown) => void } | undefined;
    let resume: (() => void) | undefined;
    let running: Promise<void> | undefined;
    let finished = false;
    const handOver = (event: WatcherEvent<T>): Promise<void> | undefined => {
      const consumer = waiting;
      if (!consumer) return undefined; // return() was called meanwhile: the loop is stopping
      waiting = undefined;
      consumer.resolve({ value: event, done: false });
      return new Promise<void>((r) => (resume = r));
    };
    /** The loop ended: the waiting consumer is told it is done, or gets what the loop threw (as from a generator). */
    const end = (failed?: { error: unknown }): void => {
      finished = true;
      if (failed) waiting?.reject(failed.error);
      else waiting?.resolve({ value: undefined, done: true });
      waiting = undefined;
    };
    return {
      next: () => {
        if (finished) return Promise.resolve({ value: undefined, done: true });
        const result = new Promise<IteratorResult<WatcherEvent<T>>>((resolve, reject) => (waiting = { resolve, reject }));
        if (running) {
          const go = resume;
          resume = undefined;
          go?.();
        } else {
          running = this.run(stop.signal, handOver).then(
            () => end(),
            (error: unknown) => end({ error }),
          );
        }
        return result;
      },
      return: async () => {
        stop.abort();
        const go = resume;
        resume = undefined;
        go?.();
        await running;
        end();
        return { value: undefined, done: true };
      },
    };
  }

  private claim(): void {
    if (this.iterated) throw new Error(`watcher for ${this.source.resource} can be iterated only once`);
    this.iterated = true;
  }

  private async run(signal: AbortSignal, deliver: Deliver<T>): Promise<void> {
    while (!signal.aborted) {
      const state = this.state;
      let failure: { error: WatcherError; retryInMs: number } | undefined;
      switch (state.phase) {
        case 'empty':
          this.current = { phase: 'listing', pages: 0 };
          await deliver({ type: 'init' });
          break;
        case 'listing':
          failure = await this.listPage(state, signal, deliver);
          break;
        case 'listed':
        case 'watching':
          failure = await this.watchOnce(state.resourceVersion, signal, deliver);
          break;
      }
      if (signal.aborted) return;
      if (failure) {
        await deliver({ type: 'error', ...failure });
        if (failure.retryInMs > 0 && !(await this.pause(failure.retryInMs, signal))) return;
      }
    }
  }

  /**
   * Waits `ms` before a retry, or less: when the failure was the server not answering, until it answers again (the
   * Transport probes it meanwhile). False when `signal` aborted.
   */
  private async pause(ms: number, signal: AbortSignal): Promise<boolean> {
    const reachability = this.source.reachability;
    if (!reachability?.isDown) return sleep(ms, signal);
    const either = linkedAbort(signal);
    try {
      await Promise.race([sleep(ms, either.signal), reachability.whenAnswering(either.signal)]);
    } finally {
      either.abort();
    }
    return !signal.aborted;
  }

  /** Fetches one page; delivers its objects, and `initDone` after the last page. Returns the failure, if any. */
  private async listPage(
    state: Extract<WatcherState, { phase: 'listing' }>,
    signal: AbortSignal,
    deliver: Deliver<T>,
  ): Promise<Failure | undefined> {
    const resource = this.source.resource;
    let page;
    try {
      page = await this.source.list({
        limit: this.pageSize,
        ...(state.continueToken !== undefined ? { continue: state.continueToken } : {}),
        signal,
      });
      if (!page || !Array.isArray(page.items)) throw new Error('the list response has no items array');
      const bad = page.items.find((item) => !isKubeObject(item));
      if (bad !== undefined) throw new Error('the list response holds an item without metadata.name');
    } catch (err) {
      if (signal.aborted) return undefined;
      if (isGone(err)) {
        // The snapshot the continue token points into is gone: only a fresh list is consistent.
        this.current = { phase: 'empty' };
        return { error: new ResourceGone(resource, 'list continue token', { cause: err }), retryInMs: 0 };
      }
      return { error: new InitialListFailed(resource, { cause: err }), retryInMs: this.backoff.next() };
    }
    for (const object of page.items) {
      const pending = deliver({ type: 'initApply', object: object as T });
      if (pending) await pending;
    }
    const continueToken = page.metadata?.continue;
    if (continueToken) {
      this.current = { phase: 'listing', continueToken, pages: state.pages + 1 };
      return undefined;
    }
    const resourceVersion = page.metadata?.resourceVersion;
    if (!resourceVersion) {
      this.current = { phase: 'empty' };
      const cause = new Error('the list response has no metadata.resourceVersion to watch from');
      return { error: new InitialListFailed(resource, { cause }), retryInMs: this.backoff.next() };
    }
    this.current = { phase: 'listed', resourceVersion };
    // A complete list proves the server healthy: the next failure starts the backoff over.
    this.backoff.reset();
    await deliver({ type: 'initDone', resourceVersion });
    return undefined;
  }

  /** Opens one watch from `resourceVersion` and follows it until it ends. Returns the failure, if any. */
  private async watchOnce(resourceVersion: string, signal: AbortSignal, deliver: Deliver<T>): Promise<Failure | undefined> {
    const resource = this.source.resource;
    const timeoutSeconds = Math.max(1, Math.round(this.timeoutSeconds * (1 - this.timeoutJitter * this.random())));
    // A watch whose stream does not end soon after its server-side timeout has stalled: cut it.
    const stalled = deadline(signal, timeoutSeconds * 1000 + this.stallGraceMs);
    const watchSignal = stalled.signal;
    let rv = resourceVersion;
    const retry = (error: WatcherError) => ({ error, retryInMs: this.backoff.next() });
    try {
      let stream: AsyncIterable<RawWatchEvent>;
      try {
        stream = await this.source.watch({ resourceVersion: rv, timeoutSeconds, signal: watchSignal });
      } catch (err) {
        if (signal.aborted) return undefined;
        if (isGone(err)) {
          this.current = { phase: 'empty' };
          return { error: new ResourceGone(resource, `resourceVersion ${rv}`, { cause: err }), retryInMs: 0 };
        }
        this.current = { phase: 'listed', resourceVersion: rv };
        return retry(new WatchStartFailed(resource, rv, { cause: err }));
      }
      this.current = { phase: 'watching', resourceVersion: rv };
      this.watchedRv = rv;
      await deliver({ type: 'watching', resourceVersion: rv });
      const openedAt = Date.now();
      let events = 0;
      try {
        for await (const event of stream) {
          events++;
          const object = event.object;
          switch (event.type) {
            case 'ADDED':
            case 'MODIFIED':
            case 'DELETED': {
              if (events === 1) {
                this.backoff.reset(); // the watch works: the next failure starts the backoff over
                this.tooLargeBefore = false;
              }
              if (!isKubeObject(object)) {
                return retry(new WatchFailed(resource, rv, `${event.type} event without an object with metadata.name`));
              }
              rv = object.metadata.resourceVersion ?? rv;
              this.watchedRv = rv;
              // The hot path: a consumer that takes events synchronously costs no promise here.
              const pending = deliver({ type: event.type === 'DELETED' ? 'delete' : 'apply', object: object as T });
              if (pending) await pending;
              if (signal.aborted) return undefined;
              break;
            }
            case 'BOOKMARK': {
              const next = isRecord(object) && isRecord(object['metadata']) ? object['metadata']['resourceVersion'] : undefined;
              if (typeof next !== 'string' || next === '') {
                return retry(new WatchFailed(resource, rv, 'BOOKMARK event without metadata.resourceVersion'));
              }
              rv = next;
              this.watchedRv = rv;
              await deliver({ type: 'bookmark', resourceVersion: rv });
              break;
            }
            case 'ERROR': {
              const status = (isRecord(object) ? object : {}) as WatchStatus;
              if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') {
                this.current = { phase: 'empty' };
                return { error: new ResourceGone(resource, `resourceVersion ${rv}`, { cause: statusError(status) }), retryInMs: 0 };
              }
              // A resourceVersion ahead of the server (e.g. it was restored from a backup, or came back empty) never
              // becomes valid: relist at once, as for 410.
              if (isTooLargeResourceVersion(status)) {
                this.current = { phase: 'empty' };
                // Twice in a row with nothing between is no longer a server that came back: back off.
                const again = this.tooLargeBefore;
                this.tooLargeBefore = true;
                return { error: new WatchErrorEvent(resource, status), retryInMs: again ? this.backoff.next() : 0 };
              }
              this.current = { phase: 'listed', resourceVersion: rv };
              return retry(new WatchErrorEvent(resource, status));
            }
            default:
              return retry(new WatchFailed(resource, rv, `unknown event type ${JSON.stringify(event.type)}`));
          }
        }
      } catch (err) {
        if (signal.aborted) return undefined;
        this.current = { phase: 'listed', resourceVersion: rv };
        const why = stalled.timedOut ? `no end of stream ${this.stallGraceMs} ms after its timeout` : 'the stream broke';
        return retry(new WatchFailed(resource, rv, why, { cause: err }));
      }
      this.current = { phase: 'listed', resourceVersion: rv };
      if (events === 0 && Date.now() - openedAt < this.minWatchMs) {
        return retry(new WatchFailed(resource, rv, 'the server closed the stream at once'));
      }
      return undefined;
    } finally {
      stalled.abort(); // ends the stream, if the server has not
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isKubeObject(value: unknown): value is KubeObject {
  if (!isRecord(value) || !isRecord(value['metadata'])) return false;
  const name = value['metadata']['name'];
  return typeof name === 'string' && name !== '';
}

function isTooLargeResourceVersion(status: WatchStatus): boolean {
  if (status.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  return /too large resource version/i.test(status.message ?? '');
}

function statusError(status: WatchStatus): Error {
  return new Error(status.message ?? `status ${status.code ?? '?'} ${status.reason ?? ''}`);
}
