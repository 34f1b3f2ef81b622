/**
 * @multicluster-runtime/core: write Kubernetes controllers that reconcile across a dynamic fleet of clusters.
 *
 * The root is the API a controller program uses: the fleet contracts, the manager, the builder, handlers,
 * predicates, sources, the client and cache reads, the controller author's toolkit, the providers' base classes and
 * the errors a program catches. Everything else is public under the subpath of its concept
 * (`@multicluster-runtime/core/<concept>`: object, cluster, reconcile, log, client, cache, workqueue, handler,
 * predicate, labels, source, controller, builder, kubeconfig, metrics, manager, providers, leaderelection, signal,
 * sharding, testing), each of which exports its concept's whole public API. A test in src/exports.test.ts keeps the
 * root at most 150 names. Exports are listed explicitly.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import './node-support/guard.js';
export type { GroupVersionKind, KubeObject, ObjectKey, ObjectKind, ObjectMeta, OwnerReference } from './object/types.js';

// The fleet: cluster names, the provider contract, and the one error every lookup may throw.
export type { ClusterName } from './fleet/cluster-name.js';
export { LOCAL_CLUSTER } from './fleet/cluster-name.js';
export type { Aware, Provider, ProviderContext, ProviderRunnable } from './multicluster/types.js';
export { ClusterNotFoundError, isClusterNotFound } from './multicluster/errors.js';
export type { Cluster } from './cluster/types.js';
export type { ClusterOptions } from './cluster/cluster.js';
export { newCluster } from './cluster/cluster.js';

export type { Manager, AwareRunnable, Runnable } from './manager/types.js';
export type { ManagerOptions } from './manager/options.js';
export type { MetricsSource } from './healthz/probe-server.js';
export { newManager } from './manager/manager.js';
export { signalHandler } from './manager/signal-handler.js';
export { ManagerError } from './manager/errors.js';

export type { ReconcileContext, ReconcileFunc, Reconciler, Request, Result } from './reconcile/types.js';
export { TerminalError } from './reconcile/errors.js';
export { reconcilerFromFunc } from './reconcile/request.js';

export { Builder, controllerManagedBy } from './builder/builder.js';
export { BuilderError } from './builder/errors.js';
export type { ControllerOptions } from './controller/controller.js';
export { Controller, newController } from './controller/controller.js';
export type { EventHandler } from './handler/types.js';
export { enqueueRequestForObject } from './handler/enqueue-for-object.js';
export { enqueueRequestForOwner } from './handler/enqueue-for-owner.js';
export type { MapFunc } from './handler/enqueue-from-map-func.js';
export { enqueueRequestsFromMapFunc } from './handler/enqueue-from-map-func.js';
export type { Predicate } from './predicate/types.js';
export {
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  resourceVersionChangedPredicate,
} from './predicate/changed.js';
export { andPredicates, notPredicate, orPredicates } from './predicate/combinators.js';
export { predicateFuncs } from './predicate/funcs.js';
export { labelSelectorPredicate } from './predicate/label-selector.js';
export type { LabelSelector } from '@multicluster-runtime/apimachinery';
export { LabelSelectorError, parseLabelSelector } from '@multicluster-runtime/apimachinery';
export type { Source } from './source/types.js';
export { channel } from './source/channel.js';
export { kind } from './source/kind.js';

export type { Client, ListOptions, ObjectList, Patch, Reader, Writer } from './client/types.js';
export type { NotAPromise } from './client/errors.js';
export {
  ApiError,
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isRetryable,
} from './client/errors.js';
export type { Cache, FieldIndexer, IndexerFunc } from './cache/types.js';
export { CacheNotSyncedError } from './cache/errors.js';

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
export type { JsonObject } from './object/json.js';
export { createMergePatch, mergeFrom } from './client/merge-patch.js';
export type { MutateFunc, OperationResult, ToolkitClient } from './createorupdate/create-or-update.js';
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
// Events (the Event recorder itself comes from a cluster or the manager: getEventRecorderFor); the broadcaster is in ./events.
export type { EventRecorder, EventType, RecordOptions } from './events/types.js';
export { EventError, InvalidEventError } from './events/errors.js';
export type { Origin, OriginOptions } from './origin/origin.js';
export { enqueueRequestForOrigin, nameForOrigin, originOf, originSelector, setOrigin } from './origin/origin.js';

// Providers' base classes and the simple providers; the rest of a provider author's kit is in ./providers.
export { ClusterEngager } from './providers/engager/cluster-engager.js';
export { EngagerProvider } from './providers/engager/engager-provider.js';
export { SingleClusterProvider } from './providers/single.js';
export { NopProvider } from './providers/nop.js';
export type { KubeconfigPolicy } from './kubeconfig/untrusted.js';

export type { Logger } from './log/logger.js';
export { createLogger, silentLogger } from './log/logger.js';
export type { MetricsRecorder } from './metrics/types.js';
export { PrometheusMetrics } from './metrics/prometheus.js';
export { ClusterNotOwnedError } from './sharding/errors.js';
