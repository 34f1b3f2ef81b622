/**
 * A signal that aborts when a parent aborts or a deadline passes, whose timer and listener are removed as soon as
 * the caller is done with it: 1,000 engagements must not leave 1,000 pending two-minute timers behind (as
 * `AbortSignal.any([s, AbortSignal.timeout(ms)])` would).
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True if the deadline (not the parent) aborted the signal. */
  readonly expired: boolean;
  dispose(): void;
}

export function deadline(parent: AbortSignal, ms: number): Deadline {
  const ac = new AbortController();
  let expired = false;
  const onAbort = () => ac.abort(parent.reason);
  const timer = setTimeout(() => {
    expired = true;
    ac.abort(new Error(`deadline of ${ms} ms passed`));
  }, ms);
  const dispose = () => {
    clearTimeout(timer);
    parent.removeEventListener('abort', onAbort);
  };
  if (parent.aborted) ac.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  ac.signal.addEventListener('abort', dispose, { once: true });
  return {
    signal: ac.signal,
    get expired() {
      return expired;
    },
    dispose,
  };
}
