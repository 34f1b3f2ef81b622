/**
 * Reconciles running per cluster, so the controller can tell when a disengaged cluster's last reconcile has ended
 * (Aware.waitForDisengaged). Waiters are woken on every change for their cluster and recheck their own condition.
 */
import type { ClusterName } from '../fleet/cluster-name.js';

export class InFlight {
  private readonly counts = new Map<ClusterName, number>();
  private readonly waiters = new Map<ClusterName, Set<() => void>>();

  /** A reconcile of `name` was handed to a worker. */
  begin(name: ClusterName): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /**
   * A reconcile of `name` returned (or threw). A count that falls to zero is kept (deleting and re-adding an entry
   * per reconcile makes the map reallocate its table as its size swings) until {@link release} drops it.
   */
  end(name: ClusterName): void {
    this.counts.set(name, Math.max(0, (this.counts.get(name) ?? 1) - 1));
    this.poke(name);
  }

  /** Drops `name`'s count if nothing of it is running (its cluster is no longer engaged). */
  release(name: ClusterName): void {
    if (this.counts.get(name) === 0) this.counts.delete(name);
  }

  running(name: ClusterName): number {
    return this.counts.get(name) ?? 0;
  }

  /** Wakes everyone waiting on `name` (something about it changed, e.g. its engagement ended). */
  poke(name: ClusterName): void {
    const ws = this.waiters.get(name);
    if (!ws) return;
    this.waiters.delete(name);
    for (const wake of ws) wake();
  }

  /** Resolves on the next change for `name`, or when `signal` aborts. */
  changed(name: ClusterName, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters.get(name)?.delete(wake);
        if (this.waiters.get(name)?.size === 0) this.waiters.delete(name);
        resolve();
      };
      let ws = this.waiters.get(name);
      if (!ws) this.waiters.set(name, (ws = new Set()));
      ws.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
