/**
 * A parent signal plus a timeout: the child aborts when the parent does or when the time is up, whichever comes
 * first, and says which. Its timer and its link to the parent go as soon as either fires or the caller disposes it:
 * a thousand engagements or requests must not leave a thousand pending timers behind (as
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])` would: that timer cannot be cleared).
 */
import { DeadlineExceededError } from './errors.js';
import { linkedAbort } from './linked.js';

/** A signal that aborts when its time runs out or its parent aborts; `timedOut` tells which. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True when the time ran out (not the parent, not `abort`). */
  readonly timedOut: boolean;
  /** Stops the timer; the parent still aborts the signal. */
  clearTimer(): void;
  /** Stops the timer and unlinks from the parent. Call when the work is over. Does not abort. */
  dispose(): void;
  /** Aborts the signal now (e.g. the work was superseded). */
  abort(reason?: unknown): void;
}

/**
 * A child of `parent` that aborts after `ms` with `reason()` (default DeadlineExceededError). Without `parent` it is
 * a plain timeout; with `ms` undefined it only follows the parent.
 */
export function deadline(
  parent: AbortSignal | undefined,
  ms: number | undefined,
  reason: () => unknown = () => new DeadlineExceededError(ms ?? 0),
): Deadline {
  const link = linkedAbort(parent);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clearTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  if (!link.signal.aborted && ms !== undefined) {
    timer = setTimeout(() => {
      timer = undefined;
      timedOut = true;
      link.abort(reason());
    }, ms);
    // Once the parent gives up, a pending timer would only keep the process (and a test's worker) alive.
    link.signal.addEventListener('abort', clearTimer, { once: true });
  }
  return {
    signal: link.signal,
    get timedOut() {
      return timedOut;
    },
    clearTimer,
    dispose() {
      clearTimer();
      link.dispose();
    },
    abort: (r?: unknown) => link.abort(r),
  };
}
