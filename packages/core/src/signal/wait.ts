/**
 * Waiting with an AbortSignal: for time to pass, for the signal itself, or for shared work that the caller may stop
 * waiting for while it goes on for others. Each removes its listener and timer as soon as it settles, so waiting on a
 * long-lived signal leaves nothing behind.
 */
import { subscribeAbort } from './fanout.js';

/** Waits `ms`, or less if `signal` aborts; resolves true if the full time passed, false if the signal cut it short. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(true);
    }, ms);
    const unsubscribe = signal
      ? subscribeAbort(signal, () => {
          clearTimeout(timer);
          resolve(false);
        })
      : () => {};
  });
}

/** Resolves when `signal` aborts (never rejects). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => subscribeAbort(signal, resolve));
}

/** `promise`'s value, or `fallback` as soon as `signal` aborts (at once if it has); leaves no listener behind. */
export function orAborted<T, U>(promise: Promise<T>, signal: AbortSignal, fallback: U): Promise<T | U> {
  if (signal.aborted) return Promise.resolve(fallback);
  return new Promise<T | U>((resolve, reject) => {
    const unsubscribe = subscribeAbort(signal, () => resolve(fallback));
    promise.then(
      (value) => {
        unsubscribe();
        resolve(value);
      },
      (err: unknown) => {
        unsubscribe();
        reject(err);
      },
    );
  });
}

/** Resolves like `promise`, or rejects with `signal.reason` as soon as `signal` aborts; `promise` itself goes on. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const unsubscribe = subscribeAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        unsubscribe();
        resolve(value);
      },
      (err: unknown) => {
        unsubscribe();
        reject(err);
      },
    );
  });
}
