/**
 * `@multicluster-runtime/core/providers`: building a provider: the cluster set and engager every provider here is
 * made of, desired-state helpers, status, probes, the simple providers (single cluster, none) and the lifecycle
 * errors. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { AddOptions, AddOrReplaceOutcome, ClusterSetOptions } from './clusters/cluster-set.js';
export { ClusterSet, sameConnection } from './clusters/cluster-set.js';
export type { SingleClusterProviderOptions } from './single.js';
export { SingleClusterProvider } from './single.js';
export { NopProvider } from './nop.js';
export {
  CacheSyncTimeoutError,
  ClusterAddAbortedError,
  ClusterAlreadyExistsError,
  ClusterEngageFailedError,
  ClusterIndexFailedError,
  ClusterLifecycleError,
  ClusterStartFailedError,
  IndexFieldError,
  ProviderAlreadyStartedError,
  ProviderConfigError,
} from './errors.js';
export type { ClusterConnectionOptions, ClusterFactory, RetryOptions } from './engager/cluster-engager.js';
export { ClusterEngager } from './engager/cluster-engager.js';
export type { ProviderOptionsSettings } from './check-options.js';
export { checkProviderOptions, hostClusterRule } from './check-options.js';
export { EngagerProvider } from './engager/engager-provider.js';
export type { ClusterHealth, ClusterState, ClusterStatus, StatusListener } from './engager/cluster-status.js';
export type { HealthCheckOptions } from './engager/health.js';
export type { FleetReadiness, StatusSource } from './engager/readiness.js';
export { fleetReadinessCheck, isStatusSource } from './engager/readiness.js';
export type { DesiredCluster } from './engager/desired-cluster.js';
export { absentCluster, desiredFromKubeconfig, notReadyCluster, refusedCluster } from './engager/desired-cluster.js';
export { ProbeTimeoutError, classifyFailure, describeError, probeCluster } from './engager/probe.js';
export type { FailureVerdict } from './engager/probe.js';
export { isProviderRunnable } from '../multicluster/types.js';
