/**
 * `InformerCache`: the Cache of one cluster. It keeps one shared informer per (kind, metadata-only) and answers
 * `get`/`list` from their stores, with label selectors, namespaces and field selectors served by indexes.
 *
 * Informers come in two lifetimes: `getInformer` (and a read that finds no running watch) keeps one for the cache's
 * whole life, as controller-runtime does; `acquireInformer` leases one, and the informer stops and is dropped once the
 * last lease is released and nothing holds it for life, so per-cluster controllers that come and go (and clusters
 * that move to another shard) do not leak watches. A read of a leased kind uses the lease's informer.
 */
import { ApiError } from '../client/errors.js';
import type { ListOptions, ObjectList, RequestOptions, ResourceMapping, RESTMapper } from '../client/types.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { noopMetrics, type MetricsRecorder } from '../metrics/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { cloneJson, parseLabelSelector, type LabelSelector } from '@multicluster-runtime/apimachinery';
import { kindKey } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import { abortable, whenAborted } from '../signal/wait.js';
import type { Cache, IndexerFunc, Informer, InformerLease, InformerOptions } from './types.js';
import {
  CacheNotStartedError,
  CacheNotSyncedError,
  CacheStoppedError,
  IndexConflictError,
  InvalidListOptionsError,
  UnindexedFieldError,
} from './errors.js';
import { CacheBudget, type CacheLimits } from './budget.js';
import { parseFieldSelector, type FieldRequirement } from './field-selector.js';
import { SharedInformer } from './informer.js';
import { objectNotFound } from './not-found.js';
import { resourceListWatcher, type CacheTransport } from './resource-list-watcher.js';
import { NAMESPACE_INDEX } from './store.js';
import { metadataOnly, stripManagedFields } from './transform.js';
import type { WatcherOptions } from './watcher.js';

/** Options of an InformerCache: the transport and REST mapper its informers use, resync, the watcher's settings, and logging and metrics. */
export interface InformerCacheOptions {
  /** The cluster's connection (the client's Transport). */
  transport: CacheTransport;
  restMapper: RESTMapper;
  logger?: Logger;
  metrics?: MetricsRecorder;
  /** Label for logs and metrics. Default "" (the local cluster). */
  clusterName?: ClusterName;
  /** Resync period for handlers that do not set their own. Default: none. */
  resyncPeriodMs?: number;
  /** List/watch tuning (page size, timeouts, backoff). */
  watcher?: WatcherOptions;
  /**
   * Return the cache's own frozen objects from `get`/`list` instead of deep copies. Faster, but callers must not
   * modify what they get (controller-runtime's UnsafeDisableDeepCopy).
   */
  unsafeDisableDeepCopy?: boolean;
  /**
   * The key informers store objects under (default `namespace/name`). A cache over a kcp wildcard view (`/clusters/*`)
   * must include the logical cluster, since the same namespace/name exists in many clusters; `get` then finds nothing
   * and reads go through `list` with an indexed field selector.
   */
  objectKey?: (obj: KubeObject) => string;
  /**
   * Bounds on what this cluster's cache may hold (objects, bytes). Passing one stops the cache: `start` rejects with
   * CacheLimitExceededError, which fails this cluster only. Default: no limit.
   */
  limits?: CacheLimits;
}

/** Options of a cache read: the request's signal, and `metadataOnly` to read the kind's metadata-only informer. */
export type CacheReadOptions = RequestOptions & { metadataOnly?: boolean };

/** An entry whose informer is built and synced, as a read uses it. */
interface Readable {
  readonly informer: SharedInformer;
  readonly mapping: ResourceMapping;
}

interface Entry {
  readonly key: string;
  readonly kind: ObjectKind;
  readonly metadataOnly: boolean;
  /** Resolves once the kind is mapped and the informer exists. */
  readonly ready: Promise<SharedInformer>;
  informer?: SharedInformer;
  mapping?: ResourceMapping;
  /** Held for the cache's lifetime (getInformer or a read asked for it). */
  pinned: boolean;
  leases: number;
  dropped: boolean;
  stop?: AbortController;
}

const BUILT_IN_FIELDS = new Set(['metadata.name', 'metadata.namespace']);
/** The informer index `indexField(kind, field, …)` registers: what `Informer.byIndex` reads the field's values from. */
export const fieldIndexName = (field: string): string => `field:${field}`;

export class InformerCache implements Cache {
  private readonly transport: CacheTransport;
  private readonly restMapper: RESTMapper;
  private readonly log: Logger;
  private readonly metrics: MetricsRecorder;
  private readonly clusterName: ClusterName;
  private readonly options: InformerCacheOptions;
  private readonly entries = new Map<string, Entry>();
  /** The kind the previous read asked for, and its entry. */
  private lastRead: { apiVersion: string; kind: string; metadataOnly: boolean; entry: Entry } | undefined;
  /** kindKey → field → extract; applies to informers of that kind created before or after registration. */
  private readonly indexers = new Map<string, Map<string, IndexerFunc>>();
  private readonly running = new Set<Promise<void>>();
  private state: 'new' | 'started' | 'stopped' = 'new';
  private readonly startWaiters = new Set<() => void>();
  /** Aborted with the breach when a limit is passed: the cache stops. Only with limits: nothing else fails a cache. */
  private readonly failed: AbortController | undefined;
  private readonly budget: CacheBudget | undefined;

  constructor(options: InformerCacheOptions) {
    this.options = options;
    this.transport = options.transport;
    this.restMapper = options.restMapper;
    this.log = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? noopMetrics;
    this.clusterName = options.clusterName ?? '';
    const limits = options.limits;
    if (limits && (limits.maxObjects !== undefined || limits.maxBytes !== undefined)) {
      const failed = (this.failed = new AbortController());
      this.budget = new CacheBudget(limits, this.clusterName, (err) => {
        this.log.error("cache limit exceeded; stopping this cluster's cache", err, { limit: err.limit, max: err.max });
        this.metrics.cacheLimitExceeded?.(this.clusterName, err.limit);
        failed.abort(err);
      });
    }
  }

  async getInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options: InformerOptions = {}): Promise<Informer<T>> {
    const entry = this.entry(kind, options.metadataOnly ?? false);
    entry.pinned = true;
    return (await abortable(entry.ready, options.signal)) as unknown as Informer<T>;
  }

  async acquireInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options: InformerOptions = {}): Promise<InformerLease<T>> {
    const entry = this.entry(kind, options.metadataOnly ?? false);
    entry.leases++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      entry.leases--;
      this.dropIfUnused(entry);
    };
    try {
      const informer = await abortable(entry.ready, options.signal);
      return { informer: informer as unknown as Informer<T>, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- async turns the conflict errors and a throwing indexer into the rejection FieldIndexer promises
  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    if (BUILT_IN_FIELDS.has(field)) throw new IndexConflictError(kind, field, 'the cache answers it without an index');
    if (field === '') throw new IndexConflictError(kind, field, 'the field name is empty');
    const key = kindKey(kind);
    let fields = this.indexers.get(key);
    if (!fields) this.indexers.set(key, (fields = new Map<string, IndexerFunc>()));
    if (fields.has(field)) throw IndexConflictError.alreadyRegistered(kind, field);
    fields.set(field, extract);
    for (const entry of this.entries.values()) {
      if (entry.informer && kindKey(entry.kind) === key) entry.informer.addIndex(fieldIndexName(field), extract);
    }
  }

  async get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options: CacheReadOptions = {}): Promise<T> {
    const { informer, mapping } = this.readableNow(kind, options) ?? (await this.readable(kind, options));
    const obj = informer.get(mapping.namespaced ? (key.namespace ?? '') : '', key.name);
    if (!obj) throw objectNotFound(mapping, key.name);
    return this.copy(obj) as unknown as T;
  }

  async list<T extends KubeObjectLike = KubeObject>(
    kind: ObjectKind,
    options: ListOptions & { metadataOnly?: boolean } = {},
  ): Promise<ObjectList<T>> {
    if (options.continue) throw new InvalidListOptionsError('continue', 'the cache returns every item in one page');
    const fields = options.fieldSelector === undefined ? [] : parseFieldSelector(options.fieldSelector);
    const labels = options.labelSelector === undefined ? undefined : labelSelector(options.labelSelector);
    const { informer, mapping } = await this.readable(kind, options);
    for (const f of fields) {
      if (!BUILT_IN_FIELDS.has(f.field) && !informer.hasIndex(fieldIndexName(f.field))) throw new UnindexedFieldError(kind, f.field);
    }
    const namespace = mapping.namespaced && options.namespace ? options.namespace : undefined;
    const items = candidates(informer, fields, namespace).filter(
      (obj) =>
        (namespace === undefined || obj.metadata.namespace === namespace) &&
        (labels === undefined || labels.matches(obj.metadata.labels)) &&
        fields.every((f) => matchesField(informer, obj, f)),
    );
    const resourceVersion = informer.status().resourceVersion;
    return {
      apiVersion: kind.apiVersion,
      kind: `${kind.kind}List`,
      metadata: resourceVersion ? { resourceVersion } : {},
      items: items.map((obj) => this.copy(obj) as unknown as T),
    };
  }

  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    if (!(await this.waitForStart(signal))) return false;
    const informers = await Promise.all(
      [...this.entries.values()].map((entry) =>
        entry.ready.then(
          (i) => ({ entry, informer: i }),
          () => undefined,
        ),
      ),
    );
    for (const item of informers) {
      if (!item || item.entry.dropped) continue;
      if (!(await item.informer.waitForSync(signal)) && !item.entry.dropped) return false;
    }
    return !signal.aborted;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.state !== 'new') throw new Error(`cache for cluster ${JSON.stringify(this.clusterName)} was already started`);
    this.state = 'started';
    for (const resolve of this.startWaiters) resolve();
    this.startWaiters.clear();
    for (const entry of this.entries.values()) if (entry.informer) this.launch(entry);
    await whenAborted(this.failed ? AbortSignal.any([signal, this.failed.signal]) : signal);
    this.state = 'stopped';
    for (const entry of this.entries.values()) entry.stop?.abort();
    await Promise.all(this.running);
    if (this.budget?.exceeded && !signal.aborted) throw this.budget.exceeded;
  }

  /** The entry for a kind, created (and its informer built in the background) if there is none. */
  private entry(kind: ObjectKind, metadataOnlyMode: boolean): Entry {
    if (this.state === 'stopped') throw new CacheStoppedError(kind);
    const key = `${kindKey(kind)}${metadataOnlyMode ? ' (metadata only)' : ''}`;
    const existing = this.entries.get(key);
    if (existing) return existing;
    let settle!: { resolve: (i: SharedInformer) => void; reject: (err: unknown) => void };
    const ready = new Promise<SharedInformer>((resolve, reject) => (settle = { resolve, reject }));
    // Callers await `ready` themselves; this keeps an unawaited failure from becoming an unhandled rejection.
    ready.catch(() => {});
    const entry: Entry = { key, kind, metadataOnly: metadataOnlyMode, ready, pinned: false, leases: 0, dropped: false };
    this.entries.set(key, entry);
    this.build(entry).then(settle.resolve, settle.reject);
    return entry;
  }

  private async build(entry: Entry): Promise<SharedInformer> {
    let mapping: ResourceMapping;
    try {
      mapping = await this.restMapper.mapping(entry.kind);
    } catch (err) {
      // Unknown kinds are not cached, so a CRD installed later is found on the next request.
      if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
      entry.dropped = true;
      throw err;
    }
    if (this.state === 'stopped') throw new CacheStoppedError(entry.kind);
    const informer = new SharedInformer({
      kind: entry.kind,
      source: resourceListWatcher(this.transport, mapping, { metadataOnly: entry.metadataOnly }),
      logger: this.log,
      metrics: this.metrics,
      clusterName: this.clusterName,
      transform: entry.metadataOnly ? metadataOnly : stripManagedFields,
      ...(this.options.resyncPeriodMs !== undefined ? { defaultResyncPeriodMs: this.options.resyncPeriodMs } : {}),
      ...(this.options.watcher ? { watcher: this.options.watcher } : {}),
      ...(this.options.objectKey ? { objectKey: this.options.objectKey } : {}),
      ...(this.budget ? { accounting: this.budget } : {}),
    });
    for (const [field, extract] of this.indexers.get(kindKey(entry.kind)) ?? []) informer.addIndex(fieldIndexName(field), extract);
    entry.mapping = mapping;
    entry.informer = informer;
    if (this.state === 'started' && !entry.dropped) this.launch(entry);
    return informer;
  }

  private launch(entry: Entry): void {
    const informer = entry.informer;
    if (!informer || entry.stop) return;
    entry.stop = new AbortController();
    const run = informer.run(entry.stop.signal).catch((err: unknown) => this.log.error('informer stopped unexpectedly', err));
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  private dropIfUnused(entry: Entry): void {
    if (entry.pinned || entry.leases > 0 || entry.dropped) return;
    entry.dropped = true;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    entry.stop?.abort();
  }

  /**
   * The synced informer and mapping behind a read. A read rides on an informer a watch already leases without keeping
   * it alive past that watch (so a cluster whose controllers let go of it, e.g. one that moved to another shard, keeps
   * no watch behind); with no lease, the read starts the informer and keeps it for the cache's life. When the watch
   * that ran the informer ends during the read, the read starts one of its own.
   */
  private async readable(kind: ObjectKind, options: CacheReadOptions): Promise<Readable> {
    if (this.state === 'new') throw new CacheNotStartedError(kind);
    for (;;) {
      const entry = this.entry(kind, options.metadataOnly ?? false);
      if (entry.leases === 0) entry.pinned = true;
      let informer: SharedInformer;
      try {
        informer = await abortable(entry.ready, options.signal);
      } catch (err) {
        if (options.signal?.aborted) throw new CacheNotSyncedError(kind, { cause: options.signal.reason });
        throw err;
      }
      const synced = entry.dropped ? false : await informer.waitForSyncUnless(refusedList, options.signal);
      if (synced instanceof Error) throw new CacheNotSyncedError(kind, { refusedBy: synced });
      if (synced) return { informer, mapping: entry.mapping as ResourceMapping };
      if (options.signal?.aborted) throw new CacheNotSyncedError(kind, { cause: options.signal.reason });
      if (!entry.dropped || this.state !== 'started') throw new CacheStoppedError(kind);
    }
  }

  /** The informer to read, when it is built and synced: how nearly every read is answered, without waiting. */
  private readableNow(kind: ObjectKind, options: CacheReadOptions): Readable | undefined {
    if (this.state !== 'started' || options.signal?.aborted) return undefined;
    const metadataOnly = options.metadataOnly ?? false;
    const entry = this.lastEntry(kind, metadataOnly) ?? this.entry(kind, metadataOnly);
    const informer = entry.informer;
    if (!informer || entry.dropped || !entry.mapping || !informer.hasSynced()) return undefined;
    if (entry.leases === 0) entry.pinned = true;
    if (this.lastRead?.entry !== entry) {
      this.lastRead = { apiVersion: kind.apiVersion, kind: kind.kind, metadataOnly, entry };
    }
    return entry as Readable;
  }

  /** The entry of the previous read, when this read is of the same kind: a reconciler reading one kind in a loop costs no key. */
  private lastEntry(kind: ObjectKind, metadataOnly: boolean): Entry | undefined {
    const last = this.lastRead;
    if (!last || last.entry.dropped || last.kind !== kind.kind || last.apiVersion !== kind.apiVersion) return undefined;
    return last.metadataOnly === metadataOnly ? last.entry : undefined;
  }

  private waitForStart(signal: AbortSignal): Promise<boolean> {
    if (this.state !== 'new') return Promise.resolve(!signal.aborted);
    return new Promise((resolve) => {
      const started = () => {
        signal.removeEventListener('abort', aborted);
        resolve(true);
      };
      const aborted = () => {
        this.startWaiters.delete(started);
        resolve(false);
      };
      this.startWaiters.add(started);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  private copy(obj: KubeObject): KubeObject {
    return this.options.unsafeDisableDeepCopy ? obj : cloneJson(obj);
  }
}

/**
 * A list or watch the server refused for a reason retrying will not fix soon (401, 403, 404: no permission to list
 * and watch the kind cluster-wide, or the resource went away): a read waiting for the informer gives up with it.
 */
function refusedList(err: Error): boolean {
  const cause = err.cause;
  return cause instanceof ApiError && (cause.code === 401 || cause.code === 403 || cause.code === 404);
}

function labelSelector(selector: string | Record<string, string>): LabelSelector {
  try {
    return parseLabelSelector(selector);
  } catch (err) {
    throw new InvalidListOptionsError('labelSelector', err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** The smallest starting set: an indexed equality if there is one, else the namespace, else everything. */
function candidates(informer: SharedInformer, fields: FieldRequirement[], namespace: string | undefined): KubeObject[] {
  const indexed = fields.find((f) => f.op === '=' && !BUILT_IN_FIELDS.has(f.field));
  if (indexed) return informer.byIndex(fieldIndexName(indexed.field), indexed.value);
  if (namespace !== undefined) return informer.byIndex(NAMESPACE_INDEX, namespace);
  return informer.list();
}

function matchesField(informer: SharedInformer, obj: KubeObject, f: FieldRequirement): boolean {
  let has: boolean;
  if (f.field === 'metadata.name') has = obj.metadata.name === f.value;
  else if (f.field === 'metadata.namespace') has = (obj.metadata.namespace ?? '') === f.value;
  else has = informer.indexValues(fieldIndexName(f.field), obj).includes(f.value);
  return f.op === '=' ? has : !has;
}
