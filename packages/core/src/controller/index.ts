/**
 * `@multicluster-runtime/core/controller`: the controller: a queue, sources and a reconciler, engaged per cluster;
 * its options and errors. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { ControllerOptions } from './controller.js';
export { Controller, newController } from './controller.js';
export {
  ClusterDisengagedError,
  ControllerAlreadyStartedError,
  ControllerEngageFailedError,
  ControllerError,
  ControllerOptionsError,
  WaitForSyncTimeoutError,
} from './errors.js';
