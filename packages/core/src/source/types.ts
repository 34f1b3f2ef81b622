/** Sources feed events from one cluster into a controller's queue; multi-cluster sources make one per engaged cluster. */
import type { Cluster } from '../cluster/types.js';
import type { RequestQueue } from '../handler/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';

/** Events from one cluster. */
export interface Source {
  /** Starts delivering events to `queue`; stops (and releases what it acquired) when `signal` aborts. */
  start(signal: AbortSignal, queue: RequestQueue): Promise<void>;
  /** Resolves true once the source's initial state has been delivered, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
}

/** Makes a Source for each engaged cluster. Returns undefined to skip a cluster (a cluster filter). */
export interface MultiClusterSource {
  /** The source for one engaged cluster, or undefined to skip that cluster. */
  forCluster(name: ClusterName, cluster: Cluster): Source | undefined;
}
