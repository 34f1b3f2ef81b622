/** Errors of the manager. `retryable` says whether the same call can succeed later without changing anything. */
import type { ClusterName } from '../fleet/cluster-name.js';

/**
 * Base class of the manager's own errors (configuration, lifecycle, shutdown).
 */
export class ManagerError extends Error {
  override readonly name: string = 'ManagerError';
  readonly retryable: boolean = false;
}

/** The options cannot work (e.g. leader election without a Lease name, no way to build the local cluster). */
export class ManagerConfigError extends ManagerError {
  override readonly name = 'ManagerConfigError';
}

/** `start` was called on a manager that is running or has run; a manager runs once. */
export class ManagerAlreadyStartedError extends ManagerError {
  override readonly name = 'ManagerAlreadyStartedError';
  constructor() {
    super('the manager was already started; a manager runs once (create a new one to run again)');
  }
}

/** The manager is shutting down or has stopped and accepts no new work. */
export class ManagerStoppedError extends ManagerError {
  override readonly name = 'ManagerStoppedError';
  constructor(what: string) {
    super(`the manager has stopped: cannot ${what}`);
  }
}

/** A runnable (or the provider) failed; the manager stopped because of it. `cause` is the runnable's error. */
export class RunnableFailedError extends ManagerError {
  override readonly name = 'RunnableFailedError';
  constructor(
    readonly runnable: string,
    cause: unknown,
  ) {
    super(`runnable ${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Some Aware runnables refused a cluster. Every other Aware was still engaged; `failures` says who and why. */
export class EngageFailedError extends ManagerError {
  override readonly name = 'EngageFailedError';
  override readonly retryable = true;
  constructor(
    readonly clusterName: ClusterName,
    readonly failures: ReadonlyArray<{ runnable: string; error: unknown }>,
  ) {
    const list = failures.map((f) => `${f.runnable}: ${f.error instanceof Error ? f.error.message : String(f.error)}`).join('; ');
    super(`engaging cluster ${JSON.stringify(clusterName)} failed for ${failures.length} runnable(s): ${list}`, {
      cause: new AggregateError(failures.map((f) => f.error)),
    });
  }
}

/** Runnables were still running when the graceful-shutdown deadline passed; they were abandoned. */
export class GracefulShutdownTimeoutError extends ManagerError {
  override readonly name = 'GracefulShutdownTimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly stillRunning: readonly string[],
  ) {
    super(`runnables still running ${timeoutMs} ms after shutdown began: ${stillRunning.join(', ')}`);
  }
}

/** A field index could not be registered everywhere; `failures` says where (local cluster and/or provider). */
export class FieldIndexFailedError extends ManagerError {
  override readonly name = 'FieldIndexFailedError';
  constructor(
    readonly field: string,
    readonly failures: ReadonlyArray<{ target: string; error: unknown }>,
  ) {
    const list = failures.map((f) => `${f.target}: ${f.error instanceof Error ? f.error.message : String(f.error)}`).join('; ');
    super(`indexing field ${JSON.stringify(field)} failed on ${list}`, { cause: new AggregateError(failures.map((f) => f.error)) });
  }
}
