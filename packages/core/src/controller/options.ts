/**
 * What a controller is made from, and the checks its constructor runs: a bad option fails when the controller is
 * made, naming the controller and the option, not at the first reconcile.
 */
import type { Logger } from '../log/logger.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { ReconcileFunc, Reconciler, Request } from '../reconcile/types.js';
import type { RateLimiter } from '../workqueue/types.js';
import { ControllerOptionsError } from './errors.js';

/**
 * How a controller runs: its reconciler, worker count, rate limiter, cache-sync timeout, logger, metrics, leader
 * election, and what to do when a request's cluster is gone.
 */
export interface ControllerOptions {
  reconciler: Reconciler | ReconcileFunc;
  /** Reconciles running at once (never two for the same request). Default 1. */
  maxConcurrentReconciles?: number;
  /** Retry backoff; default client-go's (per item 5 ms → 1000 s, overall 10 qps / burst 100). */
  rateLimiter?: RateLimiter<Request>;
  /** How long `start` waits for static sources, and how long an engagement's sources may take to sync before a warning. Default 120 s. */
  cacheSyncTimeoutMs?: number;
  logger?: Logger;
  metrics?: MetricsRecorder;
  /** Run only on the elected leader. Default true. */
  needLeaderElection?: boolean;
  /**
   * What a ClusterNotFoundError from the reconciler means: `drop` (default) forgets the request, since its cluster
   * is gone and retrying would hot-loop; `retry` backs off and tries again like any other error.
   */
  onClusterNotFound?: 'drop' | 'retry';
}

/** The options a running controller uses, with defaults filled in. */
export interface ResolvedControllerOptions {
  readonly reconcileFn: ReconcileFunc;
  readonly maxConcurrent: number;
  readonly cacheSyncTimeoutMs: number;
  readonly onClusterNotFound: 'drop' | 'retry';
  readonly needLeaderElection: boolean;
}

/** Checks `options` and fills defaults; throws ControllerOptionsError naming the controller. */
export function resolveControllerOptions(name: string, options: ControllerOptions): ResolvedControllerOptions {
  if (!name) throw new ControllerOptionsError(name, 'a controller needs a name');
  const r = options.reconciler as Reconciler | ReconcileFunc | undefined;
  let reconcileFn: ReconcileFunc;
  if (typeof r === 'function') reconcileFn = r;
  else if (r && typeof r.reconcile === 'function') reconcileFn = (req, ctx) => r.reconcile(req, ctx);
  else throw new ControllerOptionsError(name, 'a reconciler (an object with reconcile() or a function) is required');
  const maxConcurrent = options.maxConcurrentReconciles ?? 1;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new ControllerOptionsError(name, `maxConcurrentReconciles must be an integer ≥ 1, got ${options.maxConcurrentReconciles}`);
  }
  const cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? 120_000;
  if (!(cacheSyncTimeoutMs > 0)) {
    throw new ControllerOptionsError(name, `cacheSyncTimeoutMs must be > 0, got ${options.cacheSyncTimeoutMs}`);
  }
  return {
    reconcileFn,
    maxConcurrent,
    cacheSyncTimeoutMs,
    onClusterNotFound: options.onClusterNotFound ?? 'drop',
    needLeaderElection: options.needLeaderElection ?? true,
  };
}
