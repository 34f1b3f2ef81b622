/** Waiting on shared work with a caller's AbortSignal: the caller stops waiting, the work goes on for the others. */

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
  // Once the caller gives up, the timer has nothing left to cut short: a pending one would only keep the process
  // (and a test's worker) alive until it fires.
  const onAbort = () => {
    clearTimer();
    controller.abort(parent?.reason);
  };
  if (parent?.aborted) {
    controller.abort(parent.reason);
  } else {
    parent?.addEventListener('abort', onAbort, { once: true });
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
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
