/**
 * `@multicluster-runtime/core/cache`: informers and the informer cache: list-watch, the store and its indexes, watch
 * restarts, transforms, and their errors, for code that builds its own caches (a provider's wildcard cache, a custom
 * source). The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type {
  Cache,
  FieldIndexer,
  IndexerFunc,
  Informer,
  InformerLease,
  InformerOptions,
  InformerPhase,
  InformerStatus,
  Registration,
  ResourceEventHandler,
} from './types.js';
export type { CacheReadOptions as InformerReadOptions, InformerCacheOptions } from './informer-cache.js';
export { fieldIndexName, InformerCache } from './informer-cache.js';
export { EventRouter, ScopedInformer } from './event-router.js';
export type { CacheLimit, CacheLimits, StoreAccounting } from './budget.js';
export { CacheBudget, CacheLimitExceededError } from './budget.js';
export type { SharedInformerOptions } from './informer.js';
export { SharedInformer } from './informer.js';
export type { IndexFunc, StoreChange, StoreOptions } from './store.js';
export { NAMESPACE_INDEX, Store } from './store.js';
export type { WatcherEvent, WatcherOptions, WatcherState } from './watcher.js';
export { Watcher } from './watcher.js';
export type { ListRequest, ListWatcher, RawWatchEvent, ServerReachability, WatchRequest } from './list-watcher.js';
export type { CacheTransport, ResourceListWatchOptions } from './resource-list-watcher.js';
export { resourceListWatcher } from './resource-list-watcher.js';
export type { BackoffOptions } from './backoff.js';
export type { TransformFunc } from './transform.js';
export { metadataOnly, stripManagedFields } from './transform.js';
export type { WatchStatus } from './watcher-errors.js';
export { InitialListFailed, ResourceGone, WatchErrorEvent, WatcherError, WatchFailed, WatchStartFailed } from './watcher-errors.js';
export {
  CacheError,
  CacheNotStartedError,
  CacheNotSyncedError,
  CacheStoppedError,
  IndexConflictError,
  InvalidListOptionsError,
  UnindexedFieldError,
} from './errors.js';
