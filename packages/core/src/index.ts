/**
 * @multicluster-runtime/core: write Kubernetes controllers that reconcile across a dynamic fleet of clusters.
 * Exports are listed explicitly; each concept lives in its own folder.
 */
export type { GroupVersionKind, KubeObject, KubeObjectLike, ObjectKey, ObjectKind, ObjectMeta, OwnerReference } from './object/types.js';
export { formatApiVersion, kindKey, objectKindOf, parseApiVersion, toGroupVersionKind, toObjectKind } from './object/gvk.js';

export type { ClusterName } from './fleet/cluster-name.js';
export { LOCAL_CLUSTER } from './fleet/cluster-name.js';
export type { Aware, Provider, ProviderContext, ProviderRunnable } from './multicluster/types.js';
export { isProviderRunnable } from './multicluster/types.js';
export { ClusterNotFoundError, isClusterNotFound } from './multicluster/errors.js';

export type { Cluster } from './cluster/types.js';

export type { ReconcileContext, ReconcileFunc, Reconciler, Request, Result } from './reconcile/types.js';
export { TerminalError, isTerminalError } from './reconcile/errors.js';
export { reconcilerFromFunc, requestKey, requestToString } from './reconcile/request.js';

export type { LogFields, LogLevel, LogSink, Logger, LoggerOptions } from './log/logger.js';
export { createLogger, jsonLinesSink, silentLogger } from './log/logger.js';

export type {
  Client,
  DeleteOptions,
  ListMeta,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  PatchType,
  Reader,
  RequestOptions,
  ResourceMapping,
  RESTMapper,
  WriteOptions,
  Writer,
} from './client/types.js';
export type { ApiClientOptions, ClientTransport } from './client/client.js';
export { ApiClient } from './client/client.js';
export type { CacheReadOptions, ClientOptions, DelegatingClientOptions } from './client/delegating-client.js';
export { DelegatingClient, newDelegatingClient } from './client/delegating-client.js';
export type { DiscoveryTransport } from './client/rest-mapper.js';
export { DiscoveryRESTMapper } from './client/rest-mapper.js';
export type { TransportOptions, TransportRequest, WatchEvent, WatchRequest as TransportWatchRequest } from './client/transport.js';
export { Transport } from './client/transport.js';
export type { RequestDescription, Status, StatusDetails, StatusReason, TransportFailure } from './client/errors.js';
export {
  ApiError,
  CredentialError,
  InvalidRequestError,
  NoKindMatchError,
  TransportClosedError,
  TransportConfigError,
  TransportError,
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isNoMatchError,
  isNotFound,
  isRetryable,
  isServiceUnavailable,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './client/errors.js';
export { groupVersionPath, resourcePath } from './client/paths.js';

// The controller author's toolkit (controller-runtime's controllerutil, pkg/finalizer, meta conditions), by concept.
export type { Condition, ConditionLike, ConditionStatus, NewCondition } from './conditions/conditions.js';
export {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions/conditions.js';
export type { MergeFromOptions } from './client/merge-patch.js';
export { createMergePatch, mergeFrom } from './client/merge-patch.js';
export type { MutateFunc, OperationResult } from './createorupdate/create-or-update.js';
export { createOrPatch, createOrUpdate } from './createorupdate/create-or-update.js';
export { CreateOrUpdateError, MutateChangedKeyError, ObjectKeyMissingError } from './createorupdate/errors.js';
export { addFinalizer, containsFinalizer, removeFinalizer } from './finalizer/finalizers.js';
export type { FinalizeFunc, FinalizeResult, Finalizer, FinalizerResult } from './finalizer/registry.js';
export { Finalizers } from './finalizer/registry.js';
export { FinalizerAlreadyRegisteredError, FinalizerError, InvalidFinalizerError } from './finalizer/errors.js';
export type { OwnerReferenceOptions } from './owner/owner-references.js';
export {
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owner/owner-references.js';
export {
  AlreadyOwnedError,
  ClusterScopedDependentError,
  CrossNamespaceOwnerError,
  IncompleteOwnerError,
  OwnerReferenceError,
} from './owner/errors.js';
export type { Origin, OriginOptions } from './origin/origin.js';
export { enqueueRequestForOrigin, nameForOrigin, originOf, originSelector, setOrigin } from './origin/origin.js';

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
} from './cache/types.js';
export type { InformerCacheOptions } from './cache/informer-cache.js';
export { InformerCache } from './cache/informer-cache.js';
export type { SharedInformerOptions } from './cache/informer.js';
export { SharedInformer } from './cache/informer.js';
export type { IndexFunc, StoreChange, StoreOptions } from './cache/store.js';
export { Store } from './cache/store.js';
export type { WatcherEvent, WatcherOptions, WatcherState } from './cache/watcher.js';
export { Watcher } from './cache/watcher.js';
export type { ListRequest, ListWatcher, RawWatchEvent, WatchRequest } from './cache/list-watcher.js';
export type { CacheTransport, ResourceListWatchOptions } from './cache/resource-list-watcher.js';
export { resourceListWatcher } from './cache/resource-list-watcher.js';
export type { BackoffOptions } from './cache/backoff.js';
export type { TransformFunc } from './cache/transform.js';
export { metadataOnly, stripManagedFields } from './cache/transform.js';
export type { WatchStatus } from './cache/watcher-errors.js';
export { InitialListFailed, ResourceGone, WatchErrorEvent, WatcherError, WatchFailed, WatchStartFailed } from './cache/watcher-errors.js';
export {
  CacheError,
  CacheNotStartedError,
  CacheNotSyncedError,
  CacheStoppedError,
  IndexConflictError,
  InvalidListOptionsError,
  UnindexedFieldError,
} from './cache/errors.js';

export type { DelayingQueue, Queue, RateLimiter, RateLimitingQueue } from './workqueue/types.js';
export type { Clock } from './workqueue/clock.js';
export { systemClock } from './workqueue/clock.js';
export type { FairQueueOptions } from './workqueue/fair-queue.js';
export { FairQueue } from './workqueue/fair-queue.js';
export type { RateLimitingQueueOptions } from './workqueue/rate-limiting-queue.js';
export { RateLimitingWorkQueue, newRateLimitingQueue } from './workqueue/rate-limiting-queue.js';
export type { RequestQueueOptions } from './workqueue/request-queue.js';
export { newRequestQueue, requestRateLimiter } from './workqueue/request-queue.js';
export { PerGroupRateLimiter } from './workqueue/per-group-rate-limiter.js';
export type { ExponentialFailureRateLimiterOptions } from './workqueue/exponential-failure-rate-limiter.js';
export { ExponentialFailureRateLimiter } from './workqueue/exponential-failure-rate-limiter.js';
export type { BucketRateLimiterOptions } from './workqueue/bucket-rate-limiter.js';
export { BucketRateLimiter } from './workqueue/bucket-rate-limiter.js';
export { MaxOfRateLimiter } from './workqueue/max-of-rate-limiter.js';
export type { FastSlowRateLimiterOptions } from './workqueue/fast-slow-rate-limiter.js';
export { FastSlowRateLimiter } from './workqueue/fast-slow-rate-limiter.js';
export type { DefaultControllerRateLimiterOptions } from './workqueue/default-controller-rate-limiter.js';
export { defaultControllerRateLimiter } from './workqueue/default-controller-rate-limiter.js';
export { InvalidDelayError, WorkQueueError, WorkQueueOptionsError } from './workqueue/errors.js';
export type { CreateEvent, DeleteEvent, EventHandler, GenericEvent, RequestQueue, UpdateEvent } from './handler/types.js';
export type { EnqueueForObjectOptions } from './handler/enqueue-for-object.js';
export { enqueueRequestForObject } from './handler/enqueue-for-object.js';
export type { EnqueueForOwnerOptions } from './handler/enqueue-for-owner.js';
export { enqueueRequestForOwner } from './handler/enqueue-for-owner.js';
export type { EnqueueFromMapFuncOptions, MapContext, MapFunc, MapTarget } from './handler/enqueue-from-map-func.js';
export { enqueueRequestsFromMapFunc } from './handler/enqueue-from-map-func.js';
export type { Predicate } from './predicate/types.js';
export {
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  resourceVersionChangedPredicate,
} from './predicate/changed.js';
export { andPredicates, notPredicate, orPredicates } from './predicate/combinators.js';
export type { EventsByType, PredicateEventType } from './predicate/evaluate.js';
export { evaluatePredicates } from './predicate/evaluate.js';
export { predicateFuncs } from './predicate/funcs.js';
export { labelSelectorPredicate } from './predicate/label-selector.js';
export type { LabelSelector, LabelSelectorObject } from './labels/selector.js';
export { everythingSelector, labelSelectorFromObject, parseLabelSelector } from './labels/selector.js';
export type { LabelOperator, Requirement } from './labels/requirement.js';
export { LabelSelectorError } from './labels/errors.js';
export type { MultiClusterSource, Source } from './source/types.js';
export type { ChannelOptions } from './source/channel.js';
export { ChannelSource, channel } from './source/channel.js';
export type { ClusterFilter, KindOptions } from './source/kind.js';
export { KindSource, kind } from './source/kind.js';
export { ChannelFullError, SourceAlreadyStartedError, SourceError, SourceStartFailedError } from './source/errors.js';

export type { ClusterOptions } from './cluster/cluster.js';
export { KubeCluster, newCluster } from './cluster/cluster.js';
export { ClusterAlreadyStartedError, ClusterError } from './cluster/errors.js';

export type { ControllerOptions } from './controller/controller.js';
export { Controller, newController } from './controller/controller.js';
export {
  ClusterDisengagedError,
  ControllerAlreadyStartedError,
  ControllerEngageFailedError,
  ControllerError,
  ControllerOptionsError,
  WaitForSyncTimeoutError,
} from './controller/errors.js';

export type { BuilderControllerOptions } from './builder/builder.js';
export { Builder, controllerManagedBy } from './builder/builder.js';
export type { EngageOptions, OwnsOptions, WatchOptions } from './builder/options.js';
export {
  AlreadyBuiltError,
  BuilderError,
  DuplicateControllerNameError,
  ForCalledTwiceError,
  MissingNameError,
  MissingReconcilerError,
  NoWatchesError,
  OwnsWithoutForError,
  WatchEngagesNothingError,
} from './builder/errors.js';

export type { KubeconfigCapability, KubeconfigPolicy, KubeconfigViolation, LoadKubeconfigOptions } from './kubeconfig/untrusted.js';
export {
  KubeconfigError,
  KubeconfigInvalidError,
  KubeconfigRejectedError,
  connectionFingerprint,
  listKubeconfigContexts,
  loadUntrustedKubeconfig,
} from './kubeconfig/untrusted.js';

export type { MetricsRecorder, ReconcileOutcome } from './metrics/types.js';
export { noopMetrics } from './metrics/types.js';
export type { PrometheusMetricsOptions } from './metrics/prometheus.js';
export { PrometheusMetrics } from './metrics/prometheus.js';
export type { HealthCheck } from './healthz/checks.js';
export { BindAddressInvalidError, HealthCheckNameError, ListenFailedError, ProbeServerError } from './healthz/errors.js';

export type { AddOptions, AddOrReplaceOutcome, ClusterSetOptions } from './providers/clusters/cluster-set.js';
export { ClusterSet, sameConnection } from './providers/clusters/cluster-set.js';
export type { SingleClusterProviderOptions } from './providers/single.js';
export { SingleClusterProvider } from './providers/single.js';
export { NopProvider } from './providers/nop.js';
export {
  CacheSyncTimeoutError,
  ClusterAddAbortedError,
  ClusterAlreadyExistsError,
  ClusterEngageFailedError,
  ClusterIndexFailedError,
  ClusterLifecycleError,
  ClusterStartFailedError,
  IndexFieldError,
  ProviderAlreadyStartedError,
  ProviderConfigError,
} from './providers/errors.js';

export type { Lease, LeaseElectorOptions, LeaseSpec, Leadership } from './leaderelection/lease-elector.js';
export { LeaseElector, leaseKind } from './leaderelection/lease-elector.js';
export { LeaderElectionConfigError, LeaderElectionError, LeaderElectionLostError } from './leaderelection/errors.js';
export { formatMicroTime, parseMicroTime } from './leaderelection/micro-time.js';

export type { AwareRunnable, ClusterContext, Manager, Runnable } from './manager/types.js';
export type { LeaderElectionOptions, ManagerOptions } from './manager/options.js';
export { MultiClusterManager, newManager } from './manager/manager.js';
export type { LinkedAbort } from './signal/linked.js';
export { linkedAbort } from './signal/linked.js';
export type { Deadline } from './signal/deadline.js';
export { deadline } from './signal/deadline.js';
export { DeadlineExceededError } from './signal/errors.js';
export { sleep, whenAborted } from './signal/wait.js';
export type { SignalHandlerOptions } from './manager/signal-handler.js';
export { signalHandler } from './manager/signal-handler.js';
export {
  EngageFailedError,
  FieldIndexFailedError,
  GracefulShutdownTimeoutError,
  ManagerAlreadyStartedError,
  ManagerConfigError,
  ManagerError,
  ManagerStoppedError,
  RunnableFailedError,
} from './manager/errors.js';

export type { ShardingOptions, ShardingTimings } from './sharding/options.js';
export type { Peer } from './sharding/rendezvous.js';
export { ownerOf as rendezvousOwner } from './sharding/rendezvous.js';
export { fenceLeaseName } from './sharding/fence.js';
export { groupLabel as shardGroupLabel, roleLabel as shardRoleLabel, weightAnnotation as shardWeightAnnotation } from './sharding/peers.js';
export { ClusterNotOwnedError, ShardingConfigError, ShardingError } from './sharding/errors.js';

export type { ClusterConnectionOptions, ClusterFactory, RetryOptions } from './providers/engager/cluster-engager.js';
export { ClusterEngager } from './providers/engager/cluster-engager.js';
export { EngagerProvider } from './providers/engager/engager-provider.js';
export type { ClusterState, ClusterStatus, StatusListener } from './providers/engager/cluster-status.js';
export type { DesiredCluster } from './providers/engager/desired-cluster.js';
export { absentCluster, desiredFromKubeconfig, refusedCluster } from './providers/engager/desired-cluster.js';
export { ProbeTimeoutError, classifyFailure, describeError, probeCluster } from './providers/engager/probe.js';
export type { FailureVerdict } from './providers/engager/probe.js';
