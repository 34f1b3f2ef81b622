/** Errors of sharding. `retryable` says whether the same call can succeed later without changing anything. */
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { ClusterName } from '../fleet/cluster-name.js';

/** An error of sharding (its subclasses say which); never retryable as is. */
export class ShardingError extends Error {
  override readonly name: string = 'ShardingError';
  readonly retryable: boolean = false;
}

/** The sharding options cannot work (empty group name, bad weight, inconsistent timings); fix the options. */
export class ShardingConfigError extends ShardingError {
  override readonly name = 'ShardingConfigError';
}

/**
 * `getCluster` for a cluster the provider knows but another replica owns. It extends ClusterNotFoundError on
 * purpose: for this replica the cluster does not exist, so code that drops requests for vanished clusters (the
 * controller's default `onClusterNotFound: 'drop'`, `isClusterNotFound`) drops these too instead of retrying them;
 * the owner reconciles them. Retrying here cannot help until ownership moves, which re-engages the cluster anyway.
 */
export class ClusterNotOwnedError extends ClusterNotFoundError {
  override readonly name = 'ClusterNotOwnedError';
  constructor(
    clusterName: ClusterName,
    readonly replica: string,
    readonly owner: string | undefined,
  ) {
    super(clusterName, {
      cause: new Error(
        `cluster ${JSON.stringify(clusterName)} is owned by ${owner === undefined ? 'another replica' : `replica ${JSON.stringify(owner)}`}, not by ${JSON.stringify(replica)}`,
      ),
    });
    this.message =
      `cluster ${JSON.stringify(clusterName)} is not owned by this replica (${JSON.stringify(replica)})` +
      (owner === undefined ? '' : `; replica ${JSON.stringify(owner)} owns it`);
  }
}
