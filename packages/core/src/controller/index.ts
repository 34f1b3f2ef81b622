/**
 * `@multicluster-runtime/core/controller`: the controller: a queue, sources and a reconciler, engaged per cluster;
 * its options and errors. The package root exports the part of this most programs need.
 */
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
