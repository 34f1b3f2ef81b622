/**
 * `@multicluster-runtime/core/reconcile`: the reconciler contract: requests, results, the context a reconcile runs
 * in, and the terminal error that stops retries. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { ReconcileContext, ReconcileFunc, Reconciler, Request, Result } from './types.js';
export { TerminalError, isTerminalError } from './errors.js';
export { reconcilerFromFunc, requestKey, requestToString } from './request.js';
