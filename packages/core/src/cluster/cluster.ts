/**
 * `newCluster`: a Cluster over one API server, composed of one Transport (a single keep-alive connection pool shared
 * by the client, discovery and every informer), a discovery-backed REST mapper, the API client (`apiReader`), the
 * informer cache, `client`, which reads from the cache and writes through the API client, and the event pipeline
 * behind `getEventRecorderFor` (flushed when the cluster stops). `start` runs the cache until its signal aborts; then every informer is stopped and the pool is closed, so a
 * disengaged cluster leaves no sockets behind.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { InformerCache } from '../cache/informer-cache.js';
import type { CacheLimits } from '../cache/budget.js';
import { ApiClient } from '../client/client.js';
import { DelegatingClient, type ClientOptions } from '../client/delegating-client.js';
import { DiscoveryRESTMapper } from '../client/rest-mapper.js';
import { Transport, type TransportOptions } from '../client/transport.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { noopMetrics, type MetricsRecorder } from '../metrics/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { EventBroadcaster, type EventBroadcasterOptions } from '../events/broadcaster.js';
import type { EventRecorder } from '../events/types.js';
import { ClusterAlreadyStartedError } from './errors.js';
import type { Cluster } from './types.js';

/**
 * Options of {@link newCluster}: naming, logging, metrics, connection and client settings, event recording.
 */
export interface ClusterOptions {
  /** The cluster's name in logs and metrics. Default: the kubeconfig's current cluster name. */
  name?: ClusterName;
  logger?: Logger;
  metrics?: MetricsRecorder;
  /** Connection settings (timeouts, pool size, …). */
  transport?: TransportOptions;
  /** How `client` reads: `{ cache: { disableFor: [kind] } }` reads those kinds from the API server (controller-runtime's client.Options). */
  client?: ClientOptions;
  /** Event recording: queue size, spam limit, series update interval, flush timeout on stop. */
  events?: EventBroadcasterOptions;
  /**
   * Bounds on what the cache may hold (objects and, measured as JSON, bytes, over every kind). Passing one stops the
   * cluster: `start` rejects with CacheLimitExceededError, and a provider fails this cluster only and retries it with
   * backoff. For members whose API servers you do not control. Default: no limit.
   */
  cacheLimits?: CacheLimits;
}

/** A Cluster made by {@link newCluster}. Besides the contract it can be closed without ever being started. */
export class KubeCluster implements Cluster {
  readonly name: ClusterName;
  /** Reads from the cache, writes to the API server. */
  readonly client: DelegatingClient;
  /** Reads and writes straight to the API server. */
  readonly apiReader: ApiClient;
  readonly cache: InformerCache;
  readonly restMapper: DiscoveryRESTMapper;
  private readonly transport: Transport;
  private readonly events: EventBroadcaster;
  private started = false;

  constructor(
    readonly config: KubeConfig,
    options: ClusterOptions = {},
  ) {
    this.name = options.name ?? config.getCurrentCluster()?.name ?? '';
    this.transport = Transport.forConfig(config, options.transport);
    this.restMapper = new DiscoveryRESTMapper(this.transport);
    this.apiReader = new ApiClient(this.transport, this.restMapper);
    this.cache = new InformerCache({
      transport: this.transport,
      restMapper: this.restMapper,
      logger: (options.logger ?? silentLogger).with({ cluster: this.name }),
      metrics: options.metrics ?? noopMetrics,
      clusterName: this.name,
      ...(options.cacheLimits ? { limits: options.cacheLimits } : {}),
    });
    this.client = new DelegatingClient({ reader: this.cache, client: this.apiReader, disableFor: options.client?.cache?.disableFor ?? [] });
    this.events = new EventBroadcaster(this.apiReader, {
      ...options.events,
      clusterName: this.name,
      logger: (options.logger ?? silentLogger).with({ cluster: this.name }),
      metrics: options.metrics ?? noopMetrics,
    });
  }

  get fieldIndexer(): InformerCache {
    return this.cache;
  }

  /** The API server URL this cluster talks to. */
  get server(): string {
    return this.transport.server;
  }

  /**
   * A recorder writing events.k8s.io/v1 Events into this cluster under `reportingController` (one pipeline per
   * cluster, shared by its recorders). Pending events are written when the cluster stops.
   */
  getEventRecorderFor(reportingController: string): EventRecorder {
    return this.events.recorderFor(reportingController);
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new ClusterAlreadyStartedError(this.name);
    this.started = true;
    try {
      await this.cache.start(signal);
    } finally {
      await this.events.stop();
      await this.transport.close();
    }
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return this.cache.waitForCacheSync(signal);
  }

  /** Closes the connection pool of a cluster that was used (client calls) but never started. */
  async close(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.events.stop();
    await this.transport.close();
  }
}

/** A cluster over the API server `config` points at. Call `start(signal)` to run its cache. */
export function newCluster(config: KubeConfig, options: ClusterOptions = {}): KubeCluster {
  return new KubeCluster(config, options);
}
