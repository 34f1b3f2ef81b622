/**
 * Cache contracts: shared informers (one per kind per cluster) that keep an indexed local copy of objects and tell
 * handlers about changes, and the reads they serve.
 */
import type { Reader, RequestOptions } from '../client/types.js';
import type { KubeObject, ObjectKind } from '../object/types.js';

/** Extracts the values an object is indexed under for a field; return [] to leave it out of the index. */
export type IndexerFunc = (obj: KubeObject) => string[];

/**
 * Registers field indexes (controller-runtime's `FieldIndexer`): `indexField(kind, field, extract)` lets
 * `list(kind, { fieldSelector: { [field]: value } })` read an index instead of scanning the cache.
 */
export interface FieldIndexer {
  /**
   * Indexes objects of `kind` by `field` so that `list(kind, { fieldSelector: { [field]: value } })` answers from
   * the index. Registering the same kind and field twice is an error.
   */
  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void>;
}

/**
 * Callbacks an informer calls for each change (client-go's ResourceEventHandler). A callback that throws is logged and
 * does not affect others. Objects are frozen: copy one to change it.
 */
export interface ResourceEventHandler<T extends KubeObject = KubeObject> {
  /** An object appeared; `isInInitialList` for those of the first list (and the replay a late handler gets). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** An object changed (also on a resync, with the same object twice). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** `stateUnknown` is true when the delete was inferred from a relist, so `obj` is the last state seen. */
  onDelete?(obj: T, stateUnknown: boolean): void;
}

/** A handler's registration on an informer. */
export interface Registration {
  /** Stops calls to the handler. Idempotent. */
  remove(): void;
  /** True once the handler has been given every object of the informer's initial list. */
  hasSynced(): boolean;
}

/** What an informer is doing: listing for the first time, watching, or retrying after an error. */
export type InformerPhase = 'pending' | 'listing' | 'watching' | 'backoff' | 'stopped';

/** An informer's state: its phase, whether it synced, its last error and consecutive failures. */
export interface InformerStatus {
  phase: InformerPhase;
  synced: boolean;
  /** The last error seen, kept until the next success. */
  lastError?: Error;
  /** Resource version the next watch resumes from. */
  resourceVersion?: string;
  /** Consecutive failures since the last success. */
  failures: number;
  /** Handler callbacks that threw or rejected since the informer was created (each was logged and skipped). */
  handlerFailures?: number;
}

/** One kind's list-and-watch with its store, shared by everything that watches the kind on one cluster. */
export interface Informer<T extends KubeObject = KubeObject> {
  readonly kind: ObjectKind;
  /** Adds a handler; it first gets onAdd for every object already in the store (isInInitialList true). */
  addEventHandler(handler: ResourceEventHandler<T>, options?: { resyncPeriodMs?: number }): Registration;
  /** True once the first list is in the store. */
  hasSynced(): boolean;
  /** What the informer is doing now (see {@link InformerStatus}). */
  status(): InformerStatus;
  /** Snapshot reads from the store. */
  get(namespace: string, name: string): T | undefined;
  /** Every object in the store (frozen; copy to change). */
  list(): T[];
  /**
   * Objects whose index `name` holds `value`, in key order, where the informer keeps indexes (the cache's informers
   * do: `namespace` always, and one per field registered with `indexField`). Throws RangeError for an unknown index.
   */
  byIndex?(name: string, value: string): T[];
}

/** A hold on a shared informer; the informer stops once every holder has released it. */
export interface InformerLease<T extends KubeObject = KubeObject> {
  readonly informer: Informer<T>;
  /** Gives the hold back (once); the last release stops the informer. */
  release(): void;
}

/** Options of getting an informer: the request's signal, and whether to keep metadata only. */
export interface InformerOptions extends RequestOptions {
  /** Keep only metadata (PartialObjectMetadata) in the store. */
  metadataOnly?: boolean;
}

export interface Cache extends Reader, FieldIndexer {
  /** The shared informer for `kind`, started if the cache is running; kept for the cache's lifetime. */
  getInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options?: InformerOptions): Promise<Informer<T>>;
  /** Like getInformer, but the informer stops and is dropped when the last lease is released. */
  acquireInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options?: InformerOptions): Promise<InformerLease<T>>;
  /** Resolves true when every informer has synced; false if `signal` aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean>;
  /** Runs informers until `signal` aborts, then stops them all. */
  start(signal: AbortSignal): Promise<void>;
}
