/** Errors of the provider acceptance suite and its leak checks; each name says what failed. */

export class AcceptanceError extends Error {
  override readonly name: string = 'AcceptanceError';
}

/** The fixture handed to the suite is unusable (a missing method, a method without its counterpart). */
export class AcceptanceFixtureError extends AcceptanceError {
  override readonly name: string = 'AcceptanceFixtureError';
}

/** A condition the suite awaited did not hold in time; `cause` is the last failure seen while waiting. */
export class AcceptanceTimeoutError extends AcceptanceError {
  override readonly name: string = 'AcceptanceTimeoutError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    const last = options?.cause instanceof Error ? `; last: ${options.cause.message}` : '';
    super(`timed out after ${timeoutMs} ms waiting until ${what}${last}`, options);
  }
}

/** The manager under test failed while the suite was waiting on it. */
export class ManagerFailedError extends AcceptanceError {
  override readonly name: string = 'ManagerFailedError';
  constructor(what: string, cause: unknown) {
    super(`the manager failed while waiting until ${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A kind of handle with more open after a test than before. */
export interface Leak {
  /** The kind of handle (a key of `trackedHandles`: sockets, timers, ...). */
  readonly kind: string;
  readonly before: number;
  readonly after: number;
}

/** Handles (sockets, timers, ...) were still open after the work that opened them stopped. */
export class LeakError extends AcceptanceError {
  override readonly name: string = 'LeakError';
  constructor(readonly leaks: readonly Leak[]) {
    super(`left open: ${leaks.map((l) => `${l.kind} ${l.before} before, ${l.after} after`).join('; ')}`);
  }
}
