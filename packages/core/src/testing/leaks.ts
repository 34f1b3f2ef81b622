/**
 * Leak checks: the handles Node keeps for this process (sockets, timers, child processes, file watchers), counted
 * before and after a piece of work: {@link baselineHandles} before, {@link expectNoLeaks} after. The servers of in-memory tests run in this process, so a connection left open
 * shows twice (client and server end) and one closed shows as fewer handles. Counting is process-wide: take the
 * baseline when nothing else is starting or stopping.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { LeakError } from './errors.js';

/** The handle kinds counted: Node's names for them in `process.getActiveResourcesInfo()`. */
export const trackedHandles = {
  sockets: 'TCPSocketWrap',
  timers: 'Timeout',
  childProcesses: 'ProcessWrap',
  fileWatchers: 'FSEventWrap',
} as const;

/** A kind of handle the leak check counts (a key of `trackedHandles`). */
export type HandleKind = keyof typeof trackedHandles;
/** How many handles of each kind are open. */
export type HandleCounts = Record<HandleKind, number>;

/** How many handles of each tracked kind the process holds now. */
export function openHandles(): HandleCounts {
  const active = process.getActiveResourcesInfo();
  const count = (name: string) => active.filter((r) => r === name).length;
  return {
    sockets: count(trackedHandles.sockets),
    timers: count(trackedHandles.timers),
    childProcesses: count(trackedHandles.childProcesses),
    fileWatchers: count(trackedHandles.fileWatchers),
  };
}

/**
 * The baseline to compare against: per kind, the fewest handles seen over `windowMs` (default 250 ms). Work that just
 * finished (a request's timer, a closing connection) can hold a handle for a moment; a baseline taken at such a
 * moment would hide a leak of the same size, so the quiet moment in a short window is taken instead.
 */
export async function baselineHandles(windowMs = 250): Promise<HandleCounts> {
  const least = openHandles();
  const until = Date.now() + windowMs;
  while (Date.now() < until) {
    await delay(25);
    const now = openHandles();
    for (const k of Object.keys(least) as HandleKind[]) least[k] = Math.min(least[k], now[k]);
  }
  return least;
}

/** Options of expectNoLeaks: how long handles may take to close, and which kinds to check. */
export interface NoLeaksOptions {
  /** How long handles may take to close (default 15 s: closing a connection pool is asynchronous). */
  timeoutMs?: number;
  /** Which kinds to check (default all). */
  kinds?: readonly HandleKind[];
}

/**
 * Resolves once the process holds no more handles of each kind than `baseline`; rejects with a {@link LeakError}
 * naming the kinds still above it when `timeoutMs` passes. Polls with its own short sleeps, which are not running
 * while it counts, so the check never counts its own timer.
 */
export async function expectNoLeaks(baseline: HandleCounts, options: NoLeaksOptions = {}): Promise<void> {
  const kinds = options.kinds ?? (Object.keys(trackedHandles) as HandleKind[]);
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const now = openHandles();
    const above = kinds.filter((k) => now[k] > baseline[k]);
    if (above.length === 0) return;
    if (Date.now() >= deadline) {
      throw new LeakError(above.map((k) => ({ kind: k, before: baseline[k], after: now[k] })));
    }
    await delay(50);
  }
}
