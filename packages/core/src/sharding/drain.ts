/**
 * Handing a cluster back safely: after a replica stops owning a cluster, its fence may be released only once every
 * Aware says the cluster's work has stopped — no reconcile still running, even one that ignores its signal. Work that
 * outlives the wait keeps the fence unreleased (it expires instead), and a lost fence with work still running is
 * reported, since another replica may then overlap it.
 */
import type { Leadership } from '../leaderelection/lease-elector.js';
import type { Logger } from '../log/logger.js';
import { deadline } from '../signal/deadline.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware } from '../multicluster/types.js';
import type { ResolvedSharding } from './options.js';

export class WorkDrain {
  constructor(
    private readonly onward: Aware,
    private readonly log: Logger,
    private readonly timings: ResolvedSharding['timings'],
    /** Whether this replica owns the cluster (again) now. */
    private readonly owns: (name: ClusterName) => boolean,
  ) {}

  /**
   * Releases a disengaged cluster's fence once every Aware says its work has fully stopped; the fence keeps being
   * renewed meanwhile, so nobody else may take the cluster. If that takes longer than `withinMs`, the fence is not
   * released but abandoned: nobody renews it, and it expires a lease duration later — the stuck work gets that long
   * too, and a replica can never keep a cluster it does not own forever.
   */
  async handBack(name: ClusterName, term: Leadership, withinMs: number): Promise<void> {
    const waited = await this.waitForDisengaged(name, withinMs, term.signal);
    if (waited.drained) {
      await term.release();
      return;
    }
    if (term.signal.aborted) {
      this.log.warn('lost the cluster fence while its reconciles were still running; another replica may take it over and overlap them', {
        cluster: name,
      });
      return;
    }
    this.log.warn(
      "the cluster's reconciles are still running after its engagement ended (a reconciler ignores its abort signal); " +
        'not releasing its fence, which expires instead — the new owner may take it over only then',
      {
        cluster: name,
        waitedMs: Math.round(waited.ms),
        fenceExpiresInMs: this.timings.fenceLeaseDurationMs,
      },
    );
    term.abandon();
  }

  /** After a fence was lost: warns if the cluster's work outlives the time before another replica may take it. */
  async warnIfStillRunning(name: ClusterName): Promise<void> {
    const t = this.timings;
    const waited = await this.waitForDisengaged(name, t.fenceLeaseDurationMs - t.fenceRenewDeadlineMs);
    // Owned again meanwhile: the wait covered the new engagement too, so it says nothing about the old work.
    if (waited.drained || this.owns(name)) return;
    this.log.warn(
      "the cluster's reconciles are still running after its fence was lost (a reconciler ignores its abort signal); " +
        'another replica may take it over and overlap them',
      { cluster: name, waitedMs: Math.round(waited.ms) },
    );
  }

  /** Asks the Awares whether `name`'s work has stopped, waiting at most `withinMs` (less if `cancel` aborts). */
  private async waitForDisengaged(name: ClusterName, withinMs: number, cancel?: AbortSignal): Promise<{ drained: boolean; ms: number }> {
    const t0 = performance.now();
    const bound = deadline(cancel, Math.max(0, withinMs));
    try {
      const drained = await (this.onward.waitForDisengaged?.(bound.signal, name) ?? Promise.resolve(true));
      return { drained, ms: performance.now() - t0 };
    } catch (err) {
      this.log.error("asking whether a cluster's work has stopped failed; treating it as still running", err, { cluster: name });
      return { drained: false, ms: performance.now() - t0 };
    } finally {
      bound.dispose();
    }
  }
}
