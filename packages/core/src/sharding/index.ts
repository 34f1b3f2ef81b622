/**
 * `@multicluster-runtime/core/sharding`: sharding a fleet across replicas: rendezvous ownership, the fence Lease,
 * peer labels, options and errors. The package root exports the part of this most programs need.
 */
export type { ShardingOptions, ShardingTimings } from './options.js';
export type { Peer } from './rendezvous.js';
export { ownerOf as rendezvousOwner } from './rendezvous.js';
export { fenceLeaseName } from './fence.js';
export { groupLabel as shardGroupLabel, roleLabel as shardRoleLabel, weightAnnotation as shardWeightAnnotation } from './peers.js';
export { ClusterNotOwnedError, ShardingConfigError, ShardingError } from './errors.js';
