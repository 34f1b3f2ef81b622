/**
 * One virtual-workspace URL from the endpoint slice (one per kcp shard): one connection pool, one wildcard cache over
 * `<url>/clusters/*`, one REST mapper from the wildcard discovery, and the informer of the member kind (APIBindings,
 * or LogicalClusters of initializing workspaces) that says which logical clusters are members here. Logical clusters
 * engaged through it share all of these, or (memberCaches `own`) only the URL and credentials.
 */
import { newCluster, type Cluster, type KubeObject, type Logger, type ObjectKind } from '@multicluster-runtime/core';
import { DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { deadline } from '@multicluster-runtime/core/signal';
import { describeError } from '@multicluster-runtime/core/providers';
import { PATH_ANNOTATION, logicalClusterOf } from './annotations.js';
import { withServer } from './config.js';
import { EndpointStartError } from './errors.js';
import { LogicalCluster } from './logical-cluster.js';
import { prefixedTransport } from './prefixed-transport.js';
import { WildcardCache } from './wildcard-cache.js';

/**
 * kcp's APIBinding kind: a Ready binding to the export makes its logical cluster a member.
 */
export const API_BINDING: ObjectKind = { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIBinding' };

/** Ready=True in status.conditions: what upstream's default filter checks (kcp-dev/multicluster-provider#87). */
export function bindingIsReady(binding: KubeObject): boolean {
  const conditions = (binding as { status?: { conditions?: { type?: string; status?: string }[] } }).status?.conditions;
  return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export interface EndpointOptions {
  logger: Logger;
  /** Which watched objects make their logical cluster a member. */
  isReady: (binding: KubeObject) => boolean;
  /** The kind watched through the wildcard view (APIBinding; LogicalCluster for initializing workspaces). */
  memberKind: ObjectKind;
  /** Members read through this endpoint's wildcard cache (`shared`), or each through a cluster of its own (`own`). */
  memberCaches: 'shared' | 'own';
  /** Called whenever a logical cluster's bindings here change (ready or not, added or gone). */
  onChange: (cluster: string) => void;
  /** How long start() waits for the binding informer's first list. */
  startTimeoutMs: number;
}

export class Endpoint {
  private readonly transport: Transport;
  private readonly restMapper: DiscoveryRESTMapper;
  private readonly shared: WildcardCache;
  private readonly life = new AbortController();
  private running: Promise<void> | undefined;
  /** Logical cluster → names of its Ready bindings seen here. */
  private readonly ready = new Map<string, Set<string>>();
  /** Workspace path → logical cluster, from the bindings' `kcp.io/path` annotation. */
  private readonly paths = new Map<string, string>();

  constructor(
    readonly url: string,
    private readonly base: Cluster['config'],
    private readonly options: EndpointOptions,
  ) {
    this.transport = Transport.forConfig(withServer(base, url));
    const wildcard = prefixedTransport(this.transport, '/clusters/*');
    this.restMapper = new DiscoveryRESTMapper(wildcard);
    this.shared = new WildcardCache(
      { transport: wildcard, restMapper: this.restMapper, logger: options.logger, clusterName: url },
      options.logger,
    );
  }

  /** Starts the cache and waits for the APIBinding list; throws EndpointStartError (after cleaning up) if it cannot. */
  async start(): Promise<void> {
    this.running = this.shared.cache.start(this.life.signal);
    const startBy = deadline(this.life.signal, this.options.startTimeoutMs);
    try {
      const informer = await this.shared.cache.getInformer(this.options.memberKind, { signal: startBy.signal });
      informer.addEventHandler({
        onAdd: (b) => this.observe(b),
        onUpdate: (_old, b) => this.observe(b),
        onDelete: (b) => this.forget(b),
      });
      const informerSynced = await this.shared.cache.waitForCacheSync(startBy.signal);
      if (!informerSynced)
        throw informer.status().lastError ?? new Error(`the ${this.options.memberKind.kind} list did not complete in time`);
    } catch (err) {
      await this.stop();
      throw new EndpointStartError(this.url, err);
    } finally {
      startBy.dispose();
    }
  }

  /**
   * Whether the virtual workspace answers: undefined when it did (any answer but a 5xx or a 401: a 404 for the
   * discovery path is still the shard answering), else why not. A shard that is down answers 503 through kcp's front
   * proxy, or not at all.
   */
  async ping(signal: AbortSignal, timeoutMs: number): Promise<string | undefined> {
    const bound = deadline(signal, timeoutMs);
    try {
      await this.transport.request({ method: 'GET', path: '/clusters/*/api', signal: bound.signal });
      return undefined;
    } catch (err) {
      if (bound.timedOut) return `no answer within ${timeoutMs} ms`;
      const code = (err as { name?: unknown; code?: unknown }).name === 'ApiError' ? (err as { code: number }).code : undefined;
      if (code !== undefined && code < 500 && code !== 401) return undefined;
      return describeError(err);
    } finally {
      bound.dispose();
    }
  }

  hasReadyBinding(cluster: string): boolean {
    return (this.ready.get(cluster)?.size ?? 0) > 0;
  }

  clusterForPath(path: string): string | undefined {
    return this.paths.get(path);
  }

  /** Logical clusters with a Ready binding here. */
  clusters(): string[] {
    return [...this.ready.keys()];
  }

  /** A fleet member for one logical cluster of this endpoint. */
  view(cluster: string): Cluster {
    const server = `${this.url.replace(/\/+$/, '')}/clusters/${cluster}`;
    if (this.options.memberCaches === 'own') {
      return newCluster(withServer(this.base, server), { name: cluster, logger: this.options.logger.with({ logicalCluster: cluster }) });
    }
    return new LogicalCluster(
      cluster,
      withServer(this.base, server),
      prefixedTransport(this.transport, `/clusters/${cluster}`),
      this.restMapper,
      this.shared,
    );
  }

  async stop(): Promise<void> {
    this.life.abort();
    try {
      await this.running;
    } finally {
      await this.transport.close();
    }
  }

  private observe(binding: KubeObject): void {
    const cluster = logicalClusterOf(binding);
    if (!cluster) return;
    const path = binding.metadata.annotations?.[PATH_ANNOTATION];
    // The path may be set after the binding first appears (upstream #103), so every update refreshes it.
    if (path) this.paths.set(path, cluster);
    const name = binding.metadata.name ?? '';
    let names = this.ready.get(cluster);
    if (this.options.isReady(binding)) {
      if (!names) this.ready.set(cluster, (names = new Set()));
      names.add(name);
    } else if (names) {
      names.delete(name);
      if (names.size === 0) this.ready.delete(cluster);
    }
    this.options.onChange(cluster);
  }

  private forget(binding: KubeObject): void {
    const cluster = logicalClusterOf(binding);
    if (!cluster) return;
    const names = this.ready.get(cluster);
    names?.delete(binding.metadata.name ?? '');
    if (names?.size === 0) this.ready.delete(cluster);
    if (!this.ready.has(cluster)) for (const [p, c] of this.paths) if (c === cluster) this.paths.delete(p);
    this.options.onChange(cluster);
  }
}
