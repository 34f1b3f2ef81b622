/**
 * The bench's errors. None is worth retrying inside a run: a scenario that hits one is reported as failed in the
 * results and the run goes on with the next.
 */
export class BenchError extends Error {
  override readonly name: string = 'BenchError';
}

/** A condition (clusters engaged, first reconciles, a reply) did not come true in time. */
export class BenchTimeoutError extends BenchError {
  override readonly name = 'BenchTimeoutError';
}

/** A child process (runner, fleet server, go build) exited early or could not start. */
export class ChildProcessFailedError extends BenchError {
  override readonly name = 'ChildProcessFailedError';
}

/** Bad command-line options. */
export class BenchArgsError extends BenchError {
  override readonly name = 'BenchArgsError';
}
