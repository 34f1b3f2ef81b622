/**
 * Errors from the work queue and its rate limiters. Both are programming errors (a bad option or delay): retrying
 * the same call fails the same way.
 */

/** Base class: something was wrong with how the work queue or a rate limiter was used. */
export class WorkQueueError extends Error {
  override readonly name: string = 'WorkQueueError';
  /** Always false: the same call fails the same way. */
  readonly retryable = false;
}

/** `addAfter` was given a delay that is not a finite number (or a rate limiter returned one). */
export class InvalidDelayError extends WorkQueueError {
  override readonly name = 'InvalidDelayError';
  constructor(
    readonly queue: string,
    readonly delayMs: unknown,
  ) {
    super(`work queue ${JSON.stringify(queue)}: delay must be a finite number of milliseconds, got ${String(delayMs)}`);
  }
}

/** A queue or rate limiter option is out of range. */
export class WorkQueueOptionsError extends WorkQueueError {
  override readonly name = 'WorkQueueOptionsError';
  constructor(
    readonly option: string,
    reason: string,
  ) {
    super(`invalid work queue option ${option}: ${reason}`);
  }
}

/** Throws {@link WorkQueueOptionsError} unless `value` is a finite number of milliseconds ≥ 0. */
export function checkDelayOption(option: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new WorkQueueOptionsError(option, `must be a finite number ≥ 0, got ${String(value)}`);
  }
}
