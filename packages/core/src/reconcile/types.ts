/**
 * Reconcile: the unit of work. Reconcilers are level-based: a Request names an object (and its cluster), never the
 * event that caused it, so a reconciler must read current state and converge.
 */
import type { Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';

/** Names the object to reconcile. `namespace` is "" for cluster-scoped objects; `clusterName` "" is the local cluster. */
export interface Request {
  readonly clusterName: ClusterName;
  readonly namespace: string;
  readonly name: string;
}

/** What a reconciler asks for next. An empty result (or none) means "done until the next change". */
export interface Result {
  /** Requeue with the rate limiter's backoff. */
  requeue?: boolean;
  /** Requeue after this many milliseconds (takes precedence over `requeue`). */
  requeueAfter?: number;
}

/** What a reconcile call gets besides the request. */
export interface ReconcileContext {
  /** Aborts when the manager stops or the request's cluster is disengaged. */
  readonly signal: AbortSignal;
  /** A logger that carries controller, cluster, namespace and name. */
  readonly log: Logger;
  /** The request's cluster, for `manager.clusterFromContext(ctx)`. */
  readonly clusterName: ClusterName;
}

/**
 * The object form of a reconciler (controller-runtime's `reconcile.Reconciler`); a plain ReconcileFunc works too.
 */
export interface Reconciler {
  /** Brings the cluster's state for `req` to what it should be; throw (or return `requeue`) to be called again. */
  reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void>;
}

/** A reconciler written as a function. */
export type ReconcileFunc = (req: Request, ctx: ReconcileContext) => Promise<Result | void>;
