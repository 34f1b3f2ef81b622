/**
 * `@multicluster-runtime/core/manager`: the manager: runnables, providers and clusters started and stopped together,
 * leader election, probe servers and signal handling; its options and errors. The package root exports the part of
 * this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { AwareRunnable, ClusterContext, Manager, Runnable } from './types.js';
export type { LeaderElectionOptions, ManagerOptions } from './options.js';
export type { ClusterReport } from './fleet-ledger.js';
export { MultiClusterManager, newManager } from './manager.js';
export type { SignalHandlerOptions } from './signal-handler.js';
export { signalHandler } from './signal-handler.js';
export {
  EngageFailedError,
  FieldIndexFailedError,
  GracefulShutdownTimeoutError,
  ManagerAlreadyStartedError,
  ManagerConfigError,
  ManagerError,
  ManagerStoppedError,
  RunnableFailedError,
} from './errors.js';
export type { HealthCheck } from '../healthz/checks.js';
export { BindAddressInvalidError, HealthCheckNameError, ListenFailedError, ProbeServerError } from '../healthz/errors.js';
