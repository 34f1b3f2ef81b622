/**
 * Errors of the kind provider. Every one of them is retried on the next poll: a missing, failing, hanging or
 * garbled CLI may be fixed while the provider runs, and the clusters already engaged stay engaged meanwhile.
 */

export class KindCliError extends Error {
  override readonly name: string = 'KindCliError';
  readonly retryable = true;
}

/** The kind binary could not be started (not installed, not executable, wrong path). */
export class KindCliNotFoundError extends KindCliError {
  override readonly name = 'KindCliNotFoundError';
  constructor(
    readonly binary: string,
    options?: { cause?: unknown },
  ) {
    super(`kind CLI not found or not executable: ${JSON.stringify(binary)} (set the provider's "binary" option or install kind)`, options);
  }
}

/** The CLI ran and exited non-zero. `stderr` is its first line, which kind uses for its error message. */
export class KindCliFailedError extends KindCliError {
  override readonly name = 'KindCliFailedError';
  constructor(
    readonly command: string,
    readonly exitCode: number | undefined,
    readonly stderr: string,
  ) {
    super(`"kind ${command}" failed with exit code ${exitCode ?? 'unknown'}${stderr ? `: ${stderr}` : ''}`);
  }
}

/** The CLI did not answer in time and was killed. */
export class KindCliTimeoutError extends KindCliError {
  override readonly name = 'KindCliTimeoutError';
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
  ) {
    super(`"kind ${command}" did not finish within ${timeoutMs} ms and was killed`);
  }
}

/** The CLI printed something that is not what kind prints. */
export class KindCliOutputError extends KindCliError {
  override readonly name = 'KindCliOutputError';
  constructor(
    readonly command: string,
    detail: string,
  ) {
    super(`"kind ${command}" printed unexpected output: ${detail}`);
  }
}
