/**
 * `@multicluster-runtime/core/signal`: cancellation and timing: abort signals linked to a parent, deadlines,
 * abortable sleep and waiting for an abort. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { LinkedAbort } from './linked.js';
export { linkedAbort } from './linked.js';
export type { Deadline } from './deadline.js';
export { deadline } from './deadline.js';
export { DeadlineExceededError } from './errors.js';
export { sleep, whenAborted } from './wait.js';
