/**
 * A provider of exactly one cluster, engaged under a fixed name: the simplest fleet, and the way to run a
 * multi-cluster controller against one cluster that is not the manager's local one.
 */
import type { IndexerFunc } from '../cache/types.js';
import type { Cluster } from '../cluster/types.js';
import type { Logger } from '../log/logger.js';
import { whenAborted } from '../signal/wait.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { ProviderContext, ProviderRunnable } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';
import { ClusterSet } from './clusters/cluster-set.js';
import { ProviderAlreadyStartedError } from './errors.js';

/**
 * Options of {@link SingleClusterProvider}.
 */
export interface SingleClusterProviderOptions {
  /**
   * Start the cluster and wait for its cache before engaging it (default true). Set false when something else
   * runs the cluster already, e.g. when it is also the manager's local cluster.
   */
  startCluster?: boolean;
  /** Cache-sync timeout when the provider starts the cluster. Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** Default: the manager's logger. */
  logger?: Logger;
}

export class SingleClusterProvider implements ProviderRunnable {
  private started = false;

  constructor(
    readonly clusterName: ClusterName,
    readonly cluster: Cluster,
    private readonly options: SingleClusterProviderOptions = {},
  ) {}

  /** Engages the cluster once and holds it until `signal` aborts. */
  async start(signal: AbortSignal, context: ProviderContext): Promise<void> {
    if (this.started) throw new ProviderAlreadyStartedError('SingleClusterProvider');
    this.started = true;
    if (signal.aborted) return;
    if (this.options.startCluster === false) {
      await context.aware.engage(signal, this.clusterName, this.cluster);
      await whenAborted(signal);
      return;
    }
    const set = new ClusterSet({
      waitCacheTimeoutMs: this.options.waitCacheTimeoutMs,
      logger: (this.options.logger ?? context.logger).with({ provider: 'single' }),
      metrics: context.metrics,
      owner: 'single-provider',
    });
    try {
      await set.add(this.clusterName, this.cluster, context.aware, { signal });
      await whenAborted(signal);
    } finally {
      await set.removeAll();
    }
  }

  get(name: ClusterName): Promise<Cluster> {
    return name === this.clusterName ? Promise.resolve(this.cluster) : Promise.reject(new ClusterNotFoundError(name));
  }

  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    await this.cluster.fieldIndexer.indexField(kind, field, extract);
  }
}
