/**
 * One cluster's engagement with a controller: the cluster instance, a lifetime signal its sources run under, and the
 * multi-cluster sources already started for it. Ending it says why, because the controller treats the reasons
 * differently: a disengaged cluster's queued work is dropped; a replaced one's work carries on with the successor.
 */
import type { Cluster } from '../cluster/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { MultiClusterSource } from '../source/types.js';
import { subscribeAbort } from '../signal/fanout.js';
import { ClusterDisengagedError, ControllerError } from './errors.js';

export type EndReason = 'disengaged' | 'replaced' | 'failed' | 'stopped';

export class Engagement {
  private readonly life = new AbortController();
  /** Multi-cluster sources already started (or being started) for this engagement. */
  readonly started = new Set<MultiClusterSource>();
  private ended: EndReason | undefined;
  private readonly unlink: () => void;

  constructor(
    readonly controller: string,
    readonly name: ClusterName,
    readonly cluster: Cluster,
    engageSignal: AbortSignal,
    private readonly onEnd: (engagement: Engagement, reason: EndReason) => void,
  ) {
    // Providers may keep one long-lived signal per cluster; never leave a listener on it after the engagement ends.
    this.unlink = subscribeAbort(engageSignal, () => this.end('disengaged'));
  }

  /** Aborts when the engagement ends for any reason; per-cluster sources run under it. */
  get signal(): AbortSignal {
    return this.life.signal;
  }

  get endReason(): EndReason | undefined {
    return this.ended;
  }

  get live(): boolean {
    return this.ended === undefined;
  }

  /** Ends the engagement once: stops its sources (synchronously, through the signal), then tells the controller. */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    this.unlink();
    this.life.abort(
      reason === 'disengaged'
        ? new ClusterDisengagedError(this.controller, this.name)
        : new ControllerError(this.controller, `engagement of cluster ${JSON.stringify(this.name)} ended: ${reason}`, false),
    );
    this.onEnd(this, reason);
  }
}
