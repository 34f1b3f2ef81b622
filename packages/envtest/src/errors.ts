/**
 * Errors the envtest package throws to its callers (not the Kubernetes Status errors it sends over HTTP, which live in
 * api/status-error.ts). Each class says what failed and whether retrying can help.
 */

/** Base class: every error thrown by envtest's own API is an EnvtestError. */
export class EnvtestError extends Error {
  /** Whether the same call may succeed if repeated (e.g. a port briefly in use). */
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retryable = options?.retryable ?? false;
  }
}

/** Generating or parsing keys and certificates failed. Not retryable: the input or the platform is wrong. */
export class CertificateError extends EnvtestError {}

/** The server could not listen (port taken, permission). Retryable when the port may free up. */
export class ServerListenError extends EnvtestError {}

/** A lifecycle call arrived in the wrong state, e.g. restart() after close(). Not retryable. */
export class ServerStateError extends EnvtestError {}

/** Bad options passed to startApiServer/startFleet/kubeconfig(). Not retryable. */
export class InvalidOptionsError extends EnvtestError {}
