/**
 * Errors of the cluster lifecycle helper and the built-in providers. `retryable` says whether trying the same
 * operation again later can succeed (a slow cache may sync next time; a duplicate name will not go away by itself).
 */
import type { ClusterName } from '../fleet/cluster-name.js';

/**
 * Base class of the errors of starting, syncing, indexing and engaging one cluster; names the cluster.
 */
export class ClusterLifecycleError extends Error {
  override readonly name: string = 'ClusterLifecycleError';
  constructor(
    readonly clusterName: ClusterName,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `add` was called for a name that is already present (use `addOrReplace`). */
export class ClusterAlreadyExistsError extends ClusterLifecycleError {
  override readonly name = 'ClusterAlreadyExistsError';
  constructor(clusterName: ClusterName) {
    super(clusterName, `cluster ${JSON.stringify(clusterName)} already exists`, false);
  }
}

/** The cluster's cache did not sync in time; it was stopped and not engaged. Often transient. */
export class CacheSyncTimeoutError extends ClusterLifecycleError {
  override readonly name = 'CacheSyncTimeoutError';
  constructor(
    clusterName: ClusterName,
    readonly timeoutMs: number,
  ) {
    super(clusterName, `timed out after ${timeoutMs} ms waiting for the cache of cluster ${JSON.stringify(clusterName)} to sync`, true);
  }
}

/** The cluster's `start` failed before it could be engaged. */
export class ClusterStartFailedError extends ClusterLifecycleError {
  override readonly name = 'ClusterStartFailedError';
  constructor(clusterName: ClusterName, cause: unknown) {
    super(clusterName, `cluster ${JSON.stringify(clusterName)} failed to start: ${describe(cause)}`, true, { cause });
  }
}

/** Applying a recorded field index to the cluster failed; the cluster was stopped and not engaged. */
export class ClusterIndexFailedError extends ClusterLifecycleError {
  override readonly name = 'ClusterIndexFailedError';
  constructor(clusterName: ClusterName, field: string, cause: unknown) {
    super(clusterName, `indexing ${JSON.stringify(field)} on cluster ${JSON.stringify(clusterName)} failed: ${describe(cause)}`, false, {
      cause,
    });
  }
}

/** The Aware refused the cluster; it was stopped. */
export class ClusterEngageFailedError extends ClusterLifecycleError {
  override readonly name = 'ClusterEngageFailedError';
  constructor(clusterName: ClusterName, cause: unknown) {
    super(clusterName, `engaging cluster ${JSON.stringify(clusterName)} failed: ${describe(cause)}`, true, { cause });
  }
}

/** The cluster was removed or replaced (or the caller aborted) while it was still starting. */
export class ClusterAddAbortedError extends ClusterLifecycleError {
  override readonly name = 'ClusterAddAbortedError';
  constructor(clusterName: ClusterName) {
    super(clusterName, `adding cluster ${JSON.stringify(clusterName)} was cancelled: it was removed or replaced while starting`, false);
  }
}

/** A field index is already registered, or applying a new one failed on some clusters. */
export class IndexFieldError extends Error {
  override readonly name = 'IndexFieldError';
  constructor(
    message: string,
    readonly failures: ReadonlyMap<ClusterName, unknown> = new Map(),
  ) {
    super(message, failures.size > 0 ? { cause: new AggregateError([...failures.values()], message) } : undefined);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A provider's `start` was called twice; the manager starts it once. */
export class ProviderAlreadyStartedError extends Error {
  override readonly name = 'ProviderAlreadyStartedError';
  constructor(provider: string) {
    super(`${provider} was already started; the manager starts a provider once (do not call start yourself)`);
  }
}

/** A provider's options are unusable (a missing namespace, an empty path list, no host cluster, …). Not retryable. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
  readonly retryable = false;
  constructor(
    readonly provider: string,
    problem: string,
  ) {
    super(`${provider}: ${problem}`);
  }
}
