/** Errors a reconciler returns to steer retries. */

/**
 * Wraps an error that retrying cannot fix (bad spec, permanent refusal). The controller logs and counts it and
 * does not requeue the request.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True if `err` or any error in its `cause` chain is a {@link TerminalError}. */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}
