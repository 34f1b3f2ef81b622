/** Errors of the multi-cluster contracts. */
import type { ClusterName } from '../fleet/cluster-name.js';

/**
 * Thrown by `Provider.get` and `Manager.getCluster` when no engaged cluster has that name. Match it with
 * `instanceof` (or {@link isClusterNotFound}, which also sees it through `cause` chains).
 */
export class ClusterNotFoundError extends Error {
  // Typed as string so subclasses (sharding's ClusterNotOwnedError) can name themselves.
  override readonly name: string = 'ClusterNotFoundError';
  constructor(
    readonly clusterName: ClusterName,
    options?: { cause?: unknown },
  ) {
    super(`cluster ${JSON.stringify(clusterName)} not found`, options);
  }
}

/** True if `err` or any error in its `cause` chain is a {@link ClusterNotFoundError}. */
export function isClusterNotFound(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++) {
    if (e instanceof ClusterNotFoundError) return true;
  }
  return false;
}
