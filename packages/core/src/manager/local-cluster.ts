/**
 * The manager's local (host) cluster "": built from the config unless the options hand one in, started first and
 * stopped last, and ready once its cache has synced — including informers added since start (a controller's local
 * watches), which a readiness probe waits a moment for instead of failing at once. Field indexes reach it as well
 * as the provider's clusters, so an index serves a controller's local watches too.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { FieldIndexer, IndexerFunc } from '../cache/types.js';
import { newCluster } from '../cluster/cluster.js';
import type { Cluster } from '../cluster/types.js';
import { LOCAL_CLUSTER } from '../fleet/cluster-name.js';
import type { HealthCheck } from '../healthz/checks.js';
import type { Logger } from '../log/logger.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { Provider } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';
import { deadline } from '../signal/deadline.js';
import { FieldIndexFailedError, ManagerConfigError, RunnableFailedError } from './errors.js';
import type { ManagerOptions } from './options.js';

/** How long a readiness probe waits for the local cache before reporting it unsynced. */
const readinessSyncWaitMs = 250;

/** The local cluster the options name, or one built from `config` (by `options.newCluster` if given). */
export function localClusterFor(config: KubeConfig, options: ManagerOptions, logger: Logger, metrics: MetricsRecorder): Cluster {
  if (options.localCluster) return options.localCluster;
  const clusterOptions = {
    logger: logger.with({ cluster: LOCAL_CLUSTER }),
    metrics,
    ...(options.client ? { client: options.client } : {}),
  };
  if (options.newCluster) return options.newCluster(config, clusterOptions);
  try {
    return newCluster(config, { ...clusterOptions, name: LOCAL_CLUSTER });
  } catch (err) {
    throw new ManagerConfigError(`cannot build the local cluster from the config: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** Runs the local cluster for the manager: start, first sync, readiness. A failure or an early stop is fatal. */
export class LocalClusterRun {
  private synced = false;

  constructor(
    readonly cluster: Cluster,
    private readonly log: Logger,
    private readonly fail: (err: Error) => void,
  ) {}

  /** Starts the cluster until `signal` aborts; resolves when it has stopped (a stop before that fails the manager). */
  start(signal: AbortSignal): Promise<void> {
    this.log.info('starting the local cluster');
    return this.cluster.start(signal).then(
      () => {
        if (!signal.aborted) this.fail(new RunnableFailedError('local cluster', new Error('it stopped on its own')));
      },
      (err: unknown) => this.fail(new RunnableFailedError('local cluster', err)),
    );
  }

  /** Waits for the first cache sync (until `stop` aborts). */
  async waitForSync(stop: AbortSignal): Promise<void> {
    try {
      if (await this.cluster.waitForCacheSync(stop)) {
        this.synced = true;
        this.log.info('local cluster cache synced');
      }
    } catch (err) {
      this.fail(new RunnableFailedError('local cluster', err));
    }
  }

  /** The readiness check: the first sync done, and every informer synced now (added ones get a moment). */
  readonly readiness: HealthCheck = async (signal) => {
    if (!this.synced) throw new Error('the local cluster cache has not synced yet');
    // Informers added since (e.g. controllers' local watches) must have synced too; a synced cache answers at once.
    const bound = deadline(signal, readinessSyncWaitMs);
    try {
      if (!(await this.cluster.waitForCacheSync(bound.signal))) throw new Error('informers of the local cluster have not synced yet');
    } finally {
      bound.dispose();
    }
  };
}

/** A field indexer for the whole fleet: the local cluster and the provider's clusters, present and future. */
export function fleetFieldIndexer(local: Cluster, provider: Provider | undefined): FieldIndexer {
  const targets: [string, FieldIndexer | undefined][] = [
    ['the local cluster', local.fieldIndexer],
    ['the provider', provider],
  ];
  return {
    indexField: async (kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> => {
      const failures: { target: string; error: unknown }[] = [];
      for (const [target, indexer] of targets) {
        try {
          await indexer?.indexField(kind, field, extract);
        } catch (error) {
          failures.push({ target, error });
        }
      }
      if (failures.length > 0) throw new FieldIndexFailedError(field, failures);
    },
  };
}
