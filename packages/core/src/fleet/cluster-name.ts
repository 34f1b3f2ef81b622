/**
 * How a cluster is named in the fleet: the one word every layer shares (caches, metrics, queues, requests, the
 * contracts). It lives on its own, below everything, so naming a cluster ties no module to the contracts above it.
 */

/** A cluster's name within the fleet. The empty string is the local (host) cluster. */
export type ClusterName = string;

/** The name of the local (host) cluster. */
export const LOCAL_CLUSTER: ClusterName = '';
