/**
 * The manager's leader election: a Lease in the local cluster when `leaderElection.enabled`, else an election won at
 * once. Winning yields the signal leader-only work runs under (the manager's, cut short when the term ends); losing
 * a term to another replica is reported as LeaderElectionLostError, which stops the manager (restart the process,
 * as controller-runtime does).
 */
import { directClient } from '../cluster/direct-client.js';
import type { Cluster } from '../cluster/types.js';
import { LeaderElectionLostError } from '../leaderelection/errors.js';
import { LeaseElector, type Leadership } from '../leaderelection/lease-elector.js';
import type { Logger } from '../log/logger.js';
import { linkedAbort } from '../signal/linked.js';
import { RunnableFailedError } from './errors.js';
import { leaseNamespace, type LeaderElectionOptions } from './options.js';

/** A won election: where leader-only work runs, and the Lease term (none without leader election). */
export interface Victory {
  readonly signal: AbortSignal;
  readonly term?: Leadership;
}

export class Election {
  /** Resolves once this replica is elected (at once without leader election). */
  readonly elected: Promise<void>;
  private markElected!: () => void;
  private readonly elector: LeaseElector | undefined;

  constructor(local: Cluster, options: LeaderElectionOptions | undefined, log: Logger) {
    this.elected = new Promise((resolve) => {
      this.markElected = resolve;
    });
    if (!options?.enabled) return;
    this.elector = new LeaseElector(directClient(local), {
      namespace: leaseNamespace(options),
      name: options.name,
      identity: options.id,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      logger: log,
    });
  }

  /** True when replicas campaign for a Lease (leader election is on). */
  get contested(): boolean {
    return this.elector !== undefined;
  }

  /**
   * Campaigns until elected or `stop` aborts. Resolves the victory (leader-only work runs under `parent` cut short by
   * the term), or undefined when stopped first or the election failed (`fail` was told). A term lost later is
   * passed to `fail` as LeaderElectionLostError.
   */
  async campaign(stop: AbortSignal, parent: AbortSignal, fail: (err: Error) => void): Promise<Victory | undefined> {
    if (!this.elector) return { signal: parent };
    let term: Leadership | undefined;
    try {
      term = await this.elector.acquire(stop);
    } catch (err) {
      fail(new RunnableFailedError('leader election', err));
      return undefined;
    }
    if (!term) return undefined;
    const lost = term.signal;
    lost.addEventListener(
      'abort',
      () => {
        if (lost.reason instanceof LeaderElectionLostError) fail(lost.reason);
      },
      { once: true },
    );
    return { signal: linkedAbort(parent, term.signal).signal, term };
  }

  /** Records the victory: `elected` resolves. */
  won(): void {
    this.markElected();
  }
}
