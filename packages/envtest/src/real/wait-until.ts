/**
 * Polls a readiness condition with a deadline, giving up early when a watched process dies or the caller aborts,
 * so a broken start fails fast with the process's own output instead of a timeout.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ReadinessTimeoutError } from './errors.js';
import type { ManagedProcess } from './managed-process.js';

/** A check returns true when ready, or a short description of what is not ready yet. */
export type ReadinessCheck = (signal: AbortSignal) => Promise<true | string>;

export interface WaitUntilOptions {
  /** Named in the timeout error. */
  readonly component: string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Processes whose exit ends the wait with their ProcessExitedError. */
  readonly processes?: readonly ManagedProcess[];
  readonly signal?: AbortSignal;
}

export async function waitUntil(check: ReadinessCheck, options: WaitUntilOptions): Promise<void> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const died = new AbortController();
  const signals = [deadline, died.signal, ...(options.signal ? [options.signal] : [])];
  const signal = AbortSignal.any(signals);
  for (const proc of options.processes ?? []) {
    void proc.exited.then(() => died.abort(proc.failure()));
  }
  let lastProblem: string | undefined;
  try {
    for (;;) {
      signal.throwIfAborted();
      try {
        const result = await check(signal);
        if (result === true) return;
        lastProblem = result;
      } catch (err) {
        if (signal.aborted) break;
        lastProblem = err instanceof Error ? err.message : String(err);
      }
      await delay(options.intervalMs ?? 100, undefined, { signal }).catch(() => undefined);
    }
  } catch {
    // Aborted: resolved below by looking at which signal fired.
  } finally {
    died.abort();
  }
  if (options.signal?.aborted) throw options.signal.reason;
  const dead = (options.processes ?? []).find((proc) => proc.exitStatus !== undefined);
  if (dead) throw dead.failure();
  throw new ReadinessTimeoutError(options.component, options.timeoutMs, lastProblem);
}
