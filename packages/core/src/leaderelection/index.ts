/**
 * `@multicluster-runtime/core/leaderelection`: leader election on a coordination.k8s.io Lease: the elector the
 * manager uses, the Lease shape and micro-time. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { Lease, LeaseElectorOptions, LeaseSpec, Leadership } from './lease-elector.js';
export { LeaseElector, leaseKind } from './lease-elector.js';
export { LeaderElectionConfigError, LeaderElectionError, LeaderElectionLostError } from './errors.js';
export { formatMicroTime, parseMicroTime } from './micro-time.js';
