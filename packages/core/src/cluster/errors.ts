/** Errors of a Cluster made by `newCluster`. None of them goes away by retrying the same call. */
import type { ClusterName } from '../fleet/cluster-name.js';

/** An error of a Cluster, naming the cluster and whether retrying can help. */
export class ClusterError extends Error {
  override readonly name: string = 'ClusterError';
  constructor(
    readonly clusterName: ClusterName,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `start` was called on a cluster that is running or has run (a stopped cluster's connections are closed). */
export class ClusterAlreadyStartedError extends ClusterError {
  override readonly name = 'ClusterAlreadyStartedError';
  constructor(clusterName: ClusterName) {
    super(clusterName, `cluster ${JSON.stringify(clusterName)} was already started; make a new one with newCluster()`, false);
  }
}
