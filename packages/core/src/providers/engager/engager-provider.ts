/**
 * The base of a provider built on a ClusterEngager: it refuses a second start, stops the engager (disengaging every
 * cluster) however `discover` ends, and answers `get`, `indexField`, `names` and the status calls from the engager, so a
 * provider is its constructor plus `discover`, which turns its source of truth into `engager.wish` calls.
 */
import type { IndexerFunc } from '../../cache/types.js';
import type { Cluster } from '../../cluster/types.js';
import type { Logger } from '../../log/logger.js';
import type { ClusterName } from '../../fleet/cluster-name.js';
import type { ProviderContext, ProviderRunnable } from '../../multicluster/types.js';
import type { ObjectKind } from '../../object/types.js';
import { ProviderAlreadyStartedError } from '../errors.js';
import type { ClusterEngager } from './cluster-engager.js';
import type { ClusterStatus } from './cluster-status.js';

export abstract class EngagerProvider implements ProviderRunnable {
  private started = false;

  /** `providerName` names the provider in errors (e.g. `CapiProvider`). */
  protected constructor(
    protected readonly providerName: string,
    protected readonly engager: ClusterEngager,
  ) {}

  /**
   * Runs `discover` until `signal` aborts, then disengages every cluster. Started once, by the manager. From here on
   * the provider logs through `context.logger` unless its options named a logger.
   */
  async start(signal: AbortSignal, context: ProviderContext): Promise<void> {
    if (this.started) throw new ProviderAlreadyStartedError(this.providerName);
    this.started = true;
    this.engager.useContext(context);
    try {
      await this.discover(signal, context);
    } finally {
      await this.engager.stop();
    }
  }

  /**
   * Follows the provider's source of truth until `signal` aborts, feeding `engager.wish`; calls
   * `engager.begin(context.aware, signal)` once it is ready to engage. Throws only for a misconfigured provider.
   */
  protected abstract discover(signal: AbortSignal, context: ProviderContext): Promise<void>;

  /** The provider's logger: its `logger` option, else (once started) the manager's, with `{ provider }` on every record. */
  protected get log(): Logger {
    return this.engager.logger;
  }

  /** An engaged cluster; ClusterNotFoundError otherwise. */
  get(name: ClusterName): Promise<Cluster> {
    return this.engager.get(name);
  }

  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.engager.indexField(kind, field, extract);
  }

  /** Engaged clusters, sorted. */
  names(): ClusterName[] {
    return this.engager.names();
  }

  /** What the provider made of one cluster it was told about: engaged, or why not. */
  status(name: ClusterName): ClusterStatus | undefined {
    return this.engager.status(name);
  }

  /** Every cluster the provider was told about, with its status. */
  statuses(): Map<ClusterName, ClusterStatus> {
    return this.engager.statuses();
  }
}
