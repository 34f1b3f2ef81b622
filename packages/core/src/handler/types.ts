/**
 * Event handlers turn informer events into reconcile Requests. Every event carries the cluster it came from, so a
 * handler can enqueue for that cluster or for another one (cross-cluster enqueue).
 */
import type { Cluster } from '../cluster/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Request } from '../reconcile/types.js';

/** An object seen for the first time (created, or listed when the watch started). */
export interface CreateEvent<T extends KubeObjectLike = KubeObject> {
  readonly clusterName: ClusterName;
  readonly cluster: Cluster;
  readonly object: T;
  /** True for objects delivered by the informer's initial list. */
  readonly isInInitialList: boolean;
}

/** An object that changed: the old and the new state. */
export interface UpdateEvent<T extends KubeObjectLike = KubeObject> {
  readonly clusterName: ClusterName;
  readonly cluster: Cluster;
  readonly objectOld: T;
  readonly objectNew: T;
}

/** An object that is gone; `deleteStateUnknown` when the delete was missed and inferred from a relist. */
export interface DeleteEvent<T extends KubeObjectLike = KubeObject> {
  readonly clusterName: ClusterName;
  readonly cluster: Cluster;
  readonly object: T;
  /** True when the delete was inferred from a relist and `object` may be stale. */
  readonly deleteStateUnknown: boolean;
}

/** An object from a channel source or anything else that is not a watch. */
export interface GenericEvent<T extends KubeObjectLike = KubeObject> {
  readonly clusterName: ClusterName;
  readonly cluster: Cluster;
  readonly object: T;
}

/** The part of the work queue a handler may use. */
export interface RequestQueue {
  /** Adds the request now; a request already waiting is not added twice. */
  add(req: Request): void;
  /** Adds the request after `delayMs` milliseconds. */
  addAfter(req: Request, delayMs: number): void;
  /** Adds the request after the rate limiter's delay for it. */
  addRateLimited(req: Request): void;
}

/** Maps events to requests. Missing callbacks ignore that event type. Callbacks must not block. */
export interface EventHandler<T extends KubeObjectLike = KubeObject> {
  /** An object appeared (also each object of the initial list): enqueue the requests it maps to. */
  create?(event: CreateEvent<T>, queue: RequestQueue): void;
  /** An object changed: `event.objectOld` and `event.objectNew`. */
  update?(event: UpdateEvent<T>, queue: RequestQueue): void;
  /** An object went (`deleteStateUnknown` when the informer missed the deletion and learned it from a relist). */
  delete?(event: DeleteEvent<T>, queue: RequestQueue): void;
  /** An event from a source that is not an informer (a channel, a timer). */
  generic?(event: GenericEvent<T>, queue: RequestQueue): void;
}
