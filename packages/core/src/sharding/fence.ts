/**
 * A fence: one Lease per cluster (`<prefix>-fence-<cluster>`, see names.ts) that a replica must hold to engage the
 * cluster, so no two replicas ever reconcile it at once. It is leader election per cluster and reuses LeaseElector:
 * takeover only after the holder's claim expired on the taker's own clock, renewal every retry period, and a holder
 * that cannot renew within the renew deadline (shorter than the Lease duration) loses the term first — its
 * engagement is aborted before any other replica may take the fence. Released fences are taken over at once.
 */
import type { Client } from '../client/types.js';
import { LeaseElector, type Leadership } from '../leaderelection/lease-elector.js';
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
}

export class Fence {
  readonly leaseName: string;
  private readonly elector: LeaseElector;
  private term: Leadership | undefined;

  constructor(
    readonly cluster: ClusterName,
    options: FenceOptions,
  ) {
    this.leaseName = fenceLeaseName(options.prefix, cluster);
    this.elector = new LeaseElector(options.client, {
      namespace: options.namespace,
      name: this.leaseName,
      identity: options.identity,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      logger: options.logger.with({ cluster, fence: this.leaseName }),
    });
  }

  /** The live term, if this replica holds the fence. */
  get held(): Leadership | undefined {
    return this.term && !this.term.signal.aborted ? this.term : undefined;
  }

  /** Tries once to take (or keep) the fence; the term aborts when the fence is lost or released. API errors throw. */
  async tryAcquire(signal: AbortSignal): Promise<Leadership | undefined> {
    if (this.held) return this.term;
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
