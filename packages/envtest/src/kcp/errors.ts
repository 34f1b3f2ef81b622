/** Errors of the fake kcp: a request its fixtures or controller sent got an unexpected answer, or a fixture was misused. */
import { AdminRequestError } from '../admin-client.js';
import { EnvtestError } from '../errors.js';

/** A request of the fake kcp's fixtures or controller got an unexpected answer; see AdminRequestError. */
export class KcpRequestError extends AdminRequestError {}

/** A fixture was called with something the fake kcp does not know (an unknown workspace or shard). Not retryable. */
export class KcpFixtureError extends EnvtestError {}

/** A fixture waited longer than its deadline for the fake kcp to converge (e.g. an APIBinding to become Ready). */
export class KcpTimeoutError extends EnvtestError {
  constructor(message: string) {
    super(message, { retryable: true });
  }
}
