/**
 * Small AbortSignal helpers (Go's context tree). Child controllers detach from their parents when disposed, so a
 * long-lived parent signal (the manager's) does not collect one listener per engaged cluster forever.
 */
import { subscribeAbort } from '../client/abortable.js';

/** An AbortController that also aborts when any of `parents` aborts, until `dispose()` unlinks it. */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Unlinks from the parents (call when the child's work is over). Does not abort. */
  dispose(): void;
}

export function linkedAbort(...parents: (AbortSignal | undefined)[]): LinkedAbort {
  const ac = new AbortController();
  const live = parents.filter((p): p is AbortSignal => p !== undefined);
  const already = live.find((p) => p.aborted);
  if (already) {
    ac.abort(already.reason);
    return { signal: ac.signal, abort: () => {}, dispose: () => {} };
  }
  // One child per cluster or request hangs off a long-lived parent: subscribeAbort shares one listener among them.
  const unsubscribes = live.map((p) => subscribeAbort(p, () => ac.abort(p.reason)));
  const dispose = () => {
    for (const u of unsubscribes) u();
  };
  ac.signal.addEventListener('abort', dispose, { once: true });
  return { signal: ac.signal, abort: (reason?: unknown) => ac.abort(reason), dispose };
}

/** Resolves when `signal` aborts (never rejects). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Waits `ms`, or less if `signal` aborts; resolves true if the full time passed. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
