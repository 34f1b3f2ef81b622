/**
 * A fence: one Lease per cluster (`<prefix>-fence-<cluster>`, see names.ts) that a replica must hold to engage the
 * cluster, so no two replicas ever reconcile it at once. It is leader election per cluster and reuses LeaseElector:
 * takeover only after the holder's claim expired on the taker's own clock, renewal every retry period, and a holder
 * that cannot renew within the renew deadline (shorter than the Lease duration) loses the term first — its
 * engagement is aborted before any other replica may take the fence. Released fences are taken over at once.
 * Fence Leases carry the shard group's labels, so every replica's peer listing also sees every fence renewal: a
 * replica that is handed a crashed peer's cluster counts the fence's expiry from when it first saw that renewal in a
 * listing, not from its own first attempt, so the peer's expiry and the fence's overlap instead of adding up.
 */
import type { Client } from '../client/types.js';
import { LeaseElector, type Leadership, type LeaseSpec } from '../leaderelection/lease-elector.js';
import type { Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { leaseName } from './names.js';

export interface FenceTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface FenceOptions extends FenceTimings {
  client: Client;
  namespace: string;
  prefix: string;
  identity: string;
  logger: Logger;
  /** Labels of the fence Lease (the group's, role fence). */
  labels: Readonly<Record<string, string>>;
  /** What a listing of the group's Leases last saw of a Lease, and since when (monotonic ms). */
  observed?: (leaseName: string) => { spec: LeaseSpec; at: number } | undefined;
}

export class Fence {
  readonly leaseName: string;
  private readonly elector: LeaseElector;
  private term: Leadership | undefined;
  private readonly observed: FenceOptions['observed'];

  constructor(
    readonly cluster: ClusterName,
    options: FenceOptions,
  ) {
    this.leaseName = fenceLeaseName(options.prefix, cluster);
    this.observed = options.observed;
    this.elector = new LeaseElector(options.client, {
      namespace: options.namespace,
      name: this.leaseName,
      identity: options.identity,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      logger: options.logger.with({ cluster, fence: this.leaseName }),
      labels: options.labels,
    });
  }

  /** The live term, if this replica holds the fence. */
  get held(): Leadership | undefined {
    return this.term && !this.term.signal.aborted ? this.term : undefined;
  }

  /** Tries once to take (or keep) the fence; the term aborts when the fence is lost or released. API errors throw. */
  async tryAcquire(signal: AbortSignal): Promise<Leadership | undefined> {
    if (this.held) return this.term;
    const seen = this.observed?.(this.leaseName);
    if (seen) this.elector.noteObserved(seen.spec, seen.at);
    this.term = await this.elector.tryAcquire(signal);
    return this.term;
  }

  /** Stops renewing and clears the holder so another replica can take it at once. Idempotent, never throws. */
  async release(): Promise<void> {
    const term = this.term;
    this.term = undefined;
    await term?.release();
  }
}

/** The fence Lease name of a cluster. */
export function fenceLeaseName(prefix: string, cluster: ClusterName): string {
  return leaseName(`${prefix}-fence`, cluster);
}
