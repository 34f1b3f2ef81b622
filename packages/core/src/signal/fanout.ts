/**
 * One abort listener per signal, shared by every child that hangs off it. A long-lived signal (the manager's, an
 * informer's, a caller's) fans out to one child per cluster, request or watch, thousands at once in a large fleet:
 * they share one listener (removed with the last of them), so Node's leak warning at eleven listeners never fires
 * for a legitimate fan-out, a finished child leaves nothing behind, and unsubscribing is O(1).
 */

interface Fanout {
  readonly listeners: Set<() => void>;
  readonly onAbort: () => void;
}
const fanouts = new WeakMap<AbortSignal, Fanout>();

/** Calls `listener` once when `signal` aborts, until the returned function unsubscribes it. */
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
