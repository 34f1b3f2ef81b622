/** Errors of the signal helpers: the reasons they abort with. */

/** A deadline's time ran out (Go's context.DeadlineExceeded). */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}
