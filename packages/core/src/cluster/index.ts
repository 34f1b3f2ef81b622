/**
 * `@multicluster-runtime/core/cluster`: one cluster: its client, cache, REST mapper and lifecycle (`newCluster`), for
 * programs that hold a cluster directly. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { Cluster } from './types.js';
export type { ClusterOptions } from './cluster.js';
export { KubeCluster, newCluster } from './cluster.js';
export { ClusterAlreadyStartedError, ClusterError } from './errors.js';
