/**
 * Helpers for reconcile Requests: the queue key, the display form and adapting a function into a Reconciler.
 */
import type { ReconcileFunc, Reconciler, Request } from './types.js';

/**
 * The work-queue key of a request: `cluster\0namespace\0name`. NUL cannot occur in cluster names, namespaces or
 * object names, so distinct requests never share a key.
 */
export function requestKey(req: Request): string {
  return `${req.clusterName}\u0000${req.namespace}\u0000${req.name}`;
}

/**
 * The request as people read it, like upstream: `ns/name` (or `name` when cluster-scoped) for the local cluster,
 * `cluster://<cluster>/ns/name` otherwise.
 */
export function requestToString(req: Request): string {
  const objectKey = req.namespace === '' ? req.name : `${req.namespace}/${req.name}`;
  return req.clusterName === '' ? objectKey : `cluster://${req.clusterName}/${objectKey}`;
}

/** A Reconciler whose `reconcile` calls `fn`. */
export function reconcilerFromFunc(fn: ReconcileFunc): Reconciler {
  return { reconcile: (req, ctx) => fn(req, ctx) };
}
