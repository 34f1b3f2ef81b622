/**
 * `@multicluster-runtime/core/sharding`: sharding a fleet across replicas: rendezvous ownership, the fence Lease,
 * peer labels, options and errors. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { ShardingOptions, ShardingTimings } from './options.js';
export type { Peer } from './rendezvous.js';
export { ownerOf as rendezvousOwner } from './rendezvous.js';
export { fenceLeaseName } from './fence.js';
export { groupLabel as shardGroupLabel, roleLabel as shardRoleLabel, weightAnnotation as shardWeightAnnotation } from './peers.js';
export { ClusterNotOwnedError, ShardingConfigError, ShardingError } from './errors.js';
