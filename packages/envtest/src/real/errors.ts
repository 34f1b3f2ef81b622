/**
 * Errors of the real kube-apiserver tier. Every class says what failed and, through `retryable`, whether trying
 * again can help (a port taken by another process between probe and bind can; a missing binary cannot).
 */

/** Base of every error thrown while starting or stopping a real test environment. */
export abstract class TestEnvironmentError extends Error {
  /** Whether starting again (with fresh ports and folders) may succeed. */
  abstract readonly retryable: boolean;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** KUBEBUILDER_ASSETS (or `assetsDir`) is unset, or lacks an executable kube-apiserver or etcd. */
export class AssetsNotFoundError extends TestEnvironmentError {
  readonly retryable = false;
}

/** A control-plane process could not be spawned, or exited before it became ready. */
export class ProcessExitedError extends TestEnvironmentError {
  readonly retryable: boolean;

  constructor(
    readonly component: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    /** The last lines the process wrote, for diagnosis. */
    readonly outputTail: string,
  ) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    super(`${component} ${how} before it became ready${outputTail ? `; its last output:\n${outputTail}` : ''}`);
    // A port grabbed by someone else between our probe and the bind is the one failure a fresh start fixes.
    this.retryable = /address already in use|bind: address/i.test(outputTail);
  }
}

/** A control-plane process did not become ready within the start timeout. */
export class ReadinessTimeoutError extends TestEnvironmentError {
  readonly retryable = true;

  constructor(
    readonly component: string,
    timeoutMs: number,
    lastProblem: string | undefined,
  ) {
    super(`${component} was not ready within ${timeoutMs} ms${lastProblem ? ` (last check: ${lastProblem})` : ''}`);
  }
}

/** A CustomResourceDefinition given to the environment is malformed, was rejected, or never became served. */
export class CrdInstallError extends TestEnvironmentError {
  readonly retryable = false;

  constructor(
    readonly crdName: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`CRD ${crdName}: ${message}`, options);
  }
}

/** A control-plane process did not exit after SIGTERM and SIGKILL. */
export class ProcessStopError extends TestEnvironmentError {
  readonly retryable = true;
}

/** The options passed to startTestEnvironment are invalid (a token with a comma, a negative timeout, …). */
export class TestEnvironmentOptionsError extends TestEnvironmentError {
  readonly retryable = false;
}

/** The environment was stopped; it cannot be used or restarted any more. */
export class TestEnvironmentStoppedError extends TestEnvironmentError {
  readonly retryable = false;
}
