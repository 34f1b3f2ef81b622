/**
 * A provider of exactly one cluster, engaged under a fixed name: the simplest fleet, and the way to run a
 * multi-cluster controller against one cluster that is not the manager's local one.
 */
import type { IndexerFunc } from '../cache/types.js';
import type { Cluster } from '../cluster/types.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { whenAborted } from '../manager/abort.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { Aware, ClusterName, ProviderRunnable } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';
import { ClusterSet } from './clusters/cluster-set.js';
import { ProviderAlreadyStartedError } from './errors.js';

export interface SingleClusterProviderOptions {
  /**
   * Start the cluster and wait for its cache before engaging it (default true). Set false when something else
   * runs the cluster already, e.g. when it is also the manager's local cluster.
   */
  startCluster?: boolean;
  /** Cache-sync timeout when the provider starts the cluster. Default 30 s. */
  waitCacheTimeoutMs?: number;
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
  async start(signal: AbortSignal, aware: Aware): Promise<void> {
    if (this.started) throw new ProviderAlreadyStartedError('SingleClusterProvider');
    this.started = true;
    if (signal.aborted) return;
    if (this.options.startCluster === false) {
      await aware.engage(signal, this.clusterName, this.cluster);
      await whenAborted(signal);
      return;
    }
    const set = new ClusterSet({
      waitCacheTimeoutMs: this.options.waitCacheTimeoutMs,
      logger: this.options.logger ?? silentLogger,
      owner: 'single-provider',
    });
    try {
      await set.add(this.clusterName, this.cluster, aware, { signal });
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
