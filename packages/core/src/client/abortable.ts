/** Waiting on shared work with a caller's AbortSignal: the caller stops waiting, the work goes on for the others. */

interface Fanout {
  readonly listeners: Set<() => void>;
  readonly onAbort: () => void;
}
const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `listener` once when `signal` aborts, until the returned function unsubscribes it. A long-lived signal (the
 * manager's, a caller's) fans out to one child per cluster or request, thousands at once in a large fleet: they
 * share one listener on the signal (removed with the last of them), so Node's leak warning at eleven listeners
 * never fires for a legitimate fan-out, and unsubscribing is O(1).
 */
export function subscribeAbort(signal: AbortSignal, listener: () => void): () => void {
  let fanout = fanouts.get(signal);
  if (!fanout) {
    const listeners = new Set<() => void>();
    const onAbort = () => {
      fanouts.delete(signal);
      for (const l of [...listeners]) l();
    };
    fanout = { listeners, onAbort };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', onAbort, { once: true });
  }
  const own = () => listener();
  const { listeners, onAbort } = fanout;
  listeners.add(own);
  return () => {
    if (!listeners.delete(own) || listeners.size > 0 || fanouts.get(signal)?.listeners !== listeners) return;
    fanouts.delete(signal);
    signal.removeEventListener('abort', onAbort);
  };
}

/** Resolves like `promise`, or rejects with `signal.reason` as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** A request's own signal: aborted by the caller's signal or by a timer, whichever comes first. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** True when the timer (not the caller) aborted it. */
  readonly timedOut: boolean;
  /** Stops the timer; the caller's signal still aborts it. */
  clearTimer(): void;
  /** Stops the timer and detaches from the caller's signal. Call when the request is over. */
  dispose(): void;
}

/**
 * Links a new signal to `parent` with a timeout. Unlike `AbortSignal.any`, which keeps every derived signal
 * registered on a long-lived parent (the manager's signal outlives millions of requests), this detaches on dispose.
 */
export function linkedSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): LinkedSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clearTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  let unsubscribe = () => {};
  if (parent?.aborted) {
    controller.abort(parent.reason);
  } else {
    if (parent) {
      // Once the caller gives up, the timer has nothing left to cut short: a pending one would only keep the
      // process (and a test's worker) alive until it fires.
      unsubscribe = subscribeAbort(parent, () => {
        clearTimer();
        controller.abort(parent.reason);
      });
    }
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    }
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clearTimer,
    dispose() {
      clearTimer();
      unsubscribe();
    },
  };
}
