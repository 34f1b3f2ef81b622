/**
 * A shared informer: one watcher per kind feeding one store, with any number of handlers told about each change.
 * Handlers are isolated from the informer and from each other: one that throws (or rejects) is logged and counted,
 * and the others and the watch carry on. Health is visible through `status()` and the informer metrics.
 */
import { silentLogger, type Logger } from '../log/logger.js';
import { noopMetrics, type MetricsRecorder } from '../metrics/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { kindKey } from '../object/gvk.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import type { Informer, InformerPhase, InformerStatus, Registration, ResourceEventHandler } from './types.js';
import type { ListWatcher } from './list-watcher.js';
import { Store, type IndexFunc, type StoreChange } from './store.js';
import type { TransformFunc } from './transform.js';
import type { StoreAccounting } from './budget.js';
import { Watcher, type WatcherEvent, type WatcherOptions } from './watcher.js';
import { ResourceGone } from './watcher-errors.js';

/** Options of a SharedInformer: its kind and ListWatcher, the transform applied before storing, resync, and the watcher's settings. */
export interface SharedInformerOptions {
  kind: ObjectKind;
  /** Where objects come from (usually {@link resourceListWatcher}). */
  source: ListWatcher;
  logger?: Logger;
  metrics?: MetricsRecorder;
  /** Label for logs and metrics. Default "" (the local cluster). */
  clusterName?: ClusterName;
  /** What the store keeps of each object. Default: drop managedFields. */
  transform?: TransformFunc;
  /** The store key of each object (default `namespace/name`); see StoreOptions.objectKey. */
  objectKey?: (obj: KubeObject) => string;
  /** Resync period for handlers that do not set their own. Default: none. */
  defaultResyncPeriodMs?: number;
  watcher?: WatcherOptions;
  /** Told of what the store holds, for the cluster cache's limits (see CacheBudget). */
  accounting?: StoreAccounting;
}

interface HandlerEntry<T extends KubeObject> {
  readonly handler: ResourceEventHandler<T>;
  removed: boolean;
  synced: boolean;
  timer?: NodeJS.Timeout;
}

export class SharedInformer<T extends KubeObject = KubeObject> implements Informer<T> {
  readonly kind: ObjectKind;
  private readonly store: Store<T>;
  private readonly source: ListWatcher;
  private readonly log: Logger;
  private readonly metrics: MetricsRecorder;
  private readonly clusterName: ClusterName;
  private readonly kindLabel: string;
  private readonly watcherOptions: WatcherOptions;
  private readonly defaultResyncPeriodMs: number | undefined;
  /** Replaced, never changed in place: a dispatch goes on over the list it started with (see dispatch). */
  private handlers: readonly HandlerEntry<T>[] = [];
  private readonly syncWaiters = new Set<(synced: boolean) => void>();
  private readonly failureWaiters = new Set<(err: Error) => void>();
  private phase: InformerPhase = 'pending';
  private synced = false;
  private lastError: Error | undefined;
  private failures = 0;
  private handlerFailures = 0;
  private resourceVersion: string | undefined;
  private started = false;
  private initialList = true;

  constructor(options: SharedInformerOptions) {
    this.kind = options.kind;
    this.source = options.source;
    this.kindLabel = kindKey(options.kind);
    this.clusterName = options.clusterName ?? '';
    this.log = (options.logger ?? silentLogger).with({ kind: this.kindLabel, cluster: this.clusterName });
    this.metrics = options.metrics ?? noopMetrics;
    this.watcherOptions = options.watcher ?? {};
    this.defaultResyncPeriodMs = options.defaultResyncPeriodMs;
    this.store = new Store<T>({
      ...(options.transform ? { transform: options.transform } : {}),
      ...(options.objectKey ? { objectKey: options.objectKey } : {}),
      ...(options.accounting ? { accounting: options.accounting } : {}),
      onIndexError: (index, obj, err) => {
        this.log.error('index function threw; object left out of the index', err, {
          index,
          namespace: obj.metadata.namespace,
          name: obj.metadata.name,
        });
      },
    });
  }

  /**
   * Lists and watches until `signal` aborts; resolves once stopped. Never rejects: failures are retried and show in
   * `status()`. An informer runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`informer for ${this.kindLabel} was already started`);
    this.started = true;
    this.setPhase('listing');
    try {
      // Events are taken synchronously: no promise per event between the watch stream and the store.
      await new Watcher<T>(this.source, signal, this.watcherOptions).forEach((event) => {
        try {
          this.handle(event);
        } catch (err) {
          // Only the store can throw here (a transform or a malformed object); skip the event, keep watching.
          this.log.error('could not store a watch event', err, { event: event.type });
        }
      });
    } finally {
      for (const entry of this.handlers) clearInterval(entry.timer);
      this.store.release();
      this.setPhase('stopped');
      for (const resolve of this.syncWaiters) resolve(this.synced);
      this.syncWaiters.clear();
    }
  }

  addEventHandler(handler: ResourceEventHandler<T>, options: { resyncPeriodMs?: number } = {}): Registration {
    const entry: HandlerEntry<T> = { handler, removed: false, synced: false };
    this.handlers = [...this.handlers, entry];
    if (this.synced) {
      for (const obj of this.store.list()) this.call(entry, 'onAdd', () => handler.onAdd?.(obj, true));
      entry.synced = true;
    }
    const period = options.resyncPeriodMs ?? this.defaultResyncPeriodMs;
    if (period !== undefined && this.phase !== 'stopped') {
      if (!(period > 0)) throw new RangeError(`resyncPeriodMs must be positive, got ${period}`);
      entry.timer = setInterval(() => this.resync(entry), period);
      entry.timer.unref();
    }
    return {
      remove: () => {
        entry.removed = true;
        clearInterval(entry.timer);
        this.handlers = this.handlers.filter((e) => e !== entry);
      },
      hasSynced: () => entry.synced,
    };
  }

  hasSynced(): boolean {
    return this.synced;
  }

  status(): InformerStatus {
    return {
      phase: this.phase,
      synced: this.synced,
      failures: this.failures,
      handlerFailures: this.handlerFailures,
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
    };
  }

  get(namespace: string, name: string): T | undefined {
    return this.store.get(namespace, name);
  }

  list(): T[] {
    return this.store.list();
  }

  /** Resolves true once synced, false if `signal` aborts or the informer stops first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.phase === 'stopped' || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (synced: boolean) => {
        signal?.removeEventListener('abort', onAbort);
        this.syncWaiters.delete(done);
        resolve(synced);
      };
      const onAbort = () => done(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.add(done);
    });
  }

  /**
   * Like waitForSync, but gives up with the error of a failed list or watch that `fatal` says retrying will not fix
   * (the last one seen, or the next one): a read must not wait forever for an informer the server refuses to serve.
   * The informer itself keeps retrying.
   */
  async waitForSyncUnless(fatal: (err: Error) => boolean, signal?: AbortSignal): Promise<boolean | Error> {
    if (this.synced) return true;
    if (this.lastError && fatal(this.lastError)) return this.lastError;
    if (this.phase === 'stopped' || signal?.aborted) return false;
    const failed = new AbortController();
    let onFailure!: (err: Error) => void;
    const failure = new Promise<Error>((resolve) => {
      onFailure = (err) => {
        if (!fatal(err)) return;
        failed.abort();
        resolve(err);
      };
      this.failureWaiters.add(onFailure);
    });
    const both = signal ? AbortSignal.any([signal, failed.signal]) : failed.signal;
    try {
      const synced = await this.waitForSync(both);
      return synced || !failed.signal.aborted ? synced : await failure;
    } finally {
      this.failureWaiters.delete(onFailure);
    }
  }

  /** Adds an index over the objects (existing ones included). Throws if the name is taken. */
  addIndex(name: string, extract: IndexFunc<T>): void {
    this.store.addIndex(name, extract);
  }

  /** Whether an index of this name is registered. */
  hasIndex(name: string): boolean {
    return this.store.hasIndex(name);
  }

  /** Values `obj` was indexed under in index `name` when it was stored. */
  indexValues(name: string, obj: T): readonly string[] {
    return this.store.indexValues(name, obj);
  }

  /** Objects whose index `name` holds `value`. */
  byIndex(name: string, value: string): T[] {
    return this.store.byIndex(name, value);
  }

  private handle(event: WatcherEvent<T>): void {
    switch (event.type) {
      case 'init':
        this.store.beginReplace();
        this.setPhase('listing');
        return;
      case 'initApply':
        this.store.stage(event.object);
        return;
      case 'initDone': {
        this.resourceVersion = event.resourceVersion;
        const changes = this.store.commitReplace();
        this.dispatch(changes, this.initialList);
        if (!this.synced) this.markSynced();
        this.initialList = false;
        this.succeeded('listing');
        return;
      }
      case 'apply': {
        this.resourceVersion = event.object.metadata.resourceVersion ?? this.resourceVersion;
        const change = this.store.apply(event.object);
        if (change) this.dispatchOne(change, false);
        return;
      }
      case 'delete':
        this.resourceVersion = event.object.metadata.resourceVersion ?? this.resourceVersion;
        this.dispatchOne(this.store.delete(event.object), false);
        return;
      case 'watching':
        this.resourceVersion = event.resourceVersion;
        this.succeeded('watching');
        return;
      case 'bookmark':
        this.resourceVersion = event.resourceVersion;
        return;
      case 'error': {
        if (event.error instanceof ResourceGone) {
          // Expected after compaction or a long disconnect: relist at once, not a failure.
          this.log.info('resourceVersion expired, relisting', { error: event.error.message });
          return;
        }
        this.failures++;
        this.lastError = event.error;
        // One warning per outage (an unreachable cluster would otherwise log every retry); the rest at debug.
        const fields = { error: event.error.message, errorName: event.error.name, retryInMs: event.retryInMs, failures: this.failures };
        if (this.failures === 1) this.log.warn('list/watch failed, retrying', fields);
        else this.log.debug('list/watch failed, retrying', fields);
        this.setPhase('backoff');
        for (const notify of [...this.failureWaiters]) notify(event.error);
        return;
      }
    }
  }

  private succeeded(phase: InformerPhase): void {
    if (this.failures > 0) this.log.info('list/watch recovered', { failures: this.failures });
    this.failures = 0;
    this.lastError = undefined;
    this.setPhase(phase);
  }

  private markSynced(): void {
    this.synced = true;
    for (const entry of this.handlers) entry.synced = true;
    for (const resolve of [...this.syncWaiters]) resolve(true);
  }

  private setPhase(phase: InformerPhase): void {
    const changed = phase !== this.phase;
    this.phase = phase;
    if (changed || phase === 'backoff') {
      this.metrics.informerState(this.clusterName, this.kindLabel, phase === 'watching' && this.synced, this.failures);
    }
  }

  private dispatch(changes: StoreChange<T>[], isInInitialList: boolean): void {
    for (const change of changes) this.dispatchOne(change, isInInitialList);
  }

  /**
   * Tells every handler of one change, without a closure per call (this runs for every event). Handlers added while
   * it runs are not told: they were replayed the store, which already holds this change.
   */
  private dispatchOne(change: StoreChange<T>, isInInitialList: boolean): void {
    for (const entry of this.handlers) {
      if (entry.removed) continue;
      const h = entry.handler;
      let result: unknown;
      try {
        switch (change.type) {
          case 'add':
            result = h.onAdd?.(change.object, isInInitialList);
            break;
          case 'update':
            result = h.onUpdate?.(change.oldObject, change.object);
            break;
          case 'delete':
            result = h.onDelete?.(change.object, change.stateUnknown);
            break;
        }
      } catch (err) {
        this.handlerFailed(callbackOf[change.type], err);
        continue;
      }
      // Handlers are meant to be synchronous, but an async one must not turn into an unhandled rejection.
      if (result instanceof Promise) result.catch((err: unknown) => this.handlerFailed(callbackOf[change.type], err));
    }
  }

  private resync(entry: HandlerEntry<T>): void {
    if (!this.synced || entry.removed) return;
    for (const obj of this.store.list()) {
      if (entry.removed) return;
      this.call(entry, 'onUpdate', () => entry.handler.onUpdate?.(obj, obj));
    }
  }

  /** Calls one handler callback, containing whatever it throws or rejects with. */
  private call(entry: HandlerEntry<T>, callback: string, fn: () => unknown): void {
    if (entry.removed) return;
    try {
      const result = fn();
      // Handlers are meant to be synchronous, but an async one must not turn into an unhandled rejection.
      if (result instanceof Promise) result.catch((err: unknown) => this.handlerFailed(callback, err));
    } catch (err) {
      this.handlerFailed(callback, err);
    }
  }

  private handlerFailed(callback: string, err: unknown): void {
    this.handlerFailures++;
    this.log.error('event handler failed', err, { callback, handlerFailures: this.handlerFailures });
  }
}

const callbackOf = { add: 'onAdd', update: 'onUpdate', delete: 'onDelete' } as const;
