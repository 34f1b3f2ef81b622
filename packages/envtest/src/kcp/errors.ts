/** Errors of the fake kcp: a request its fixtures or controller sent got an unexpected answer, or a fixture was misused. */
import { EnvtestError } from '../errors.js';

/** A fixture request got an unexpected answer. `status` is the HTTP status (0: no answer); retryable for 409/5xx/0. */
export class KcpRequestError extends EnvtestError {
  constructor(readonly method: string, readonly path: string, readonly status: number, detail: string) {
    super(`${method} ${path} failed${status ? ` with ${status}` : ''}: ${detail}`, { retryable: status === 0 || status === 409 || status >= 500 });
  }
}

/** A fixture was called with something the fake kcp does not know (an unknown workspace or shard). Not retryable. */
export class KcpFixtureError extends EnvtestError {}

/** A fixture waited longer than its deadline for the fake kcp to converge (e.g. an APIBinding to become Ready). */
export class KcpTimeoutError extends EnvtestError {
  constructor(message: string) {
    super(message, { retryable: true });
  }
}
