/**
 * `@multicluster-runtime/core/reconcile`: the reconciler contract: requests, results, the context a reconcile runs
 * in, and the terminal error that stops retries. The package root exports the part of this most programs need.
 */
export type { ReconcileContext, ReconcileFunc, Reconciler, Request, Result } from './types.js';
export { TerminalError, isTerminalError } from './errors.js';
export { reconcilerFromFunc, requestKey, requestToString } from './request.js';
