/**
 * Errors of the controller. `retryable` says whether the same call can succeed later (a source may sync once its
 * API server answers; starting a controller twice never will).
 */
import type { ClusterName } from '../fleet/cluster-name.js';

/** An error of a controller's setup or run, naming the controller and whether retrying can help. */
export class ControllerError extends Error {
  override readonly name: string = 'ControllerError';
  constructor(
    readonly controller: string,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `start` was called a second time. */
export class ControllerAlreadyStartedError extends ControllerError {
  override readonly name = 'ControllerAlreadyStartedError';
  constructor(controller: string) {
    super(controller, `controller ${JSON.stringify(controller)} was already started`, false);
  }
}

/** Options that cannot work (no reconciler, a concurrency below 1, …). */
export class ControllerOptionsError extends ControllerError {
  override readonly name = 'ControllerOptionsError';
  constructor(controller: string, problem: string) {
    super(controller, `controller ${JSON.stringify(controller)}: ${problem}`, false);
  }
}

/** The controller's static sources (e.g. the local cluster's) did not sync within `cacheSyncTimeoutMs`. */
export class WaitForSyncTimeoutError extends ControllerError {
  override readonly name = 'WaitForSyncTimeoutError';
  constructor(
    controller: string,
    readonly timeoutMs: number,
  ) {
    super(controller, `controller ${JSON.stringify(controller)}: timed out after ${timeoutMs} ms waiting for its sources to sync`, true);
  }
}

/** A source could not be started for a cluster; the engagement was rolled back. */
export class ControllerEngageFailedError extends ControllerError {
  override readonly name = 'ControllerEngageFailedError';
  constructor(
    controller: string,
    readonly clusterName: ClusterName,
    cause: unknown,
  ) {
    super(
      controller,
      `controller ${JSON.stringify(controller)} could not engage cluster ${JSON.stringify(clusterName)}: ${cause instanceof Error ? cause.message : String(cause)}`,
      true,
      { cause },
    );
  }
}

/** The reason a reconcile's signal carries when its cluster was disengaged mid-reconcile. */
export class ClusterDisengagedError extends ControllerError {
  override readonly name = 'ClusterDisengagedError';
  constructor(
    controller: string,
    readonly clusterName: ClusterName,
  ) {
    super(controller, `cluster ${JSON.stringify(clusterName)} was disengaged from controller ${JSON.stringify(controller)}`, false);
  }
}
