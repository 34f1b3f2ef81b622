/**
 * `ApiExportProvider`: every logical cluster bound (Ready) to a kcp APIExport is a fleet member. It watches the
 * APIExportEndpointSlice in the export's workspace, runs one {@link Endpoint} per URL it lists (one per shard), and
 * engages a {@link LogicalCluster} for each logical cluster with a Ready APIBinding, through core's ClusterSet. A
 * cluster is disengaged when its last Ready binding goes (deleted or no longer Ready) or its endpoint leaves the
 * slice; endpoints that fail to start are retried with capped exponential backoff. Clusters can also be looked up by
 * workspace path (`kcp.io/path`).
 */
import type {
  Aware,
  Cluster,
  ClusterName,
  IndexerFunc,
  KubeObject,
  Logger,
  MetricsRecorder,
  ObjectKind,
  ProviderContext,
  ProviderRunnable,
} from '@multicluster-runtime/core';
import type { Informer } from '@multicluster-runtime/core/cache';
import { ClusterNotFoundError, newCluster, silentLogger } from '@multicluster-runtime/core';
import { ClusterSet, ProviderAlreadyStartedError, describeError } from '@multicluster-runtime/core/providers';
import type { ClusterHealth, ClusterStatus, HealthCheckOptions } from '@multicluster-runtime/core/providers';
import { sleep } from '@multicluster-runtime/core/signal';
import {
  anyValue,
  checkOptions,
  either,
  func,
  nested,
  positiveMs,
  rule,
  withMethods,
  type Shape,
} from '@multicluster-runtime/core/options';
import { API_BINDING, Endpoint, bindingIsReady } from './endpoint.js';
import { ApiExportProviderConfigError } from './errors.js';

/**
 * kcp's APIExportEndpointSlice kind: the virtual-workspace URLs (one per shard) the provider follows.
 */
export const API_EXPORT_ENDPOINT_SLICE: ObjectKind = { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIExportEndpointSlice' };

export interface ApiExportProviderOptions {
  /** The APIExportEndpointSlice to follow (kcp ≥ 0.28 creates one named after the export). */
  endpointSliceName: string;
  /** A kubeconfig for the workspace holding the slice (`…/clusters/root:provider`); its user reaches the endpoints too. */
  exportConfig: Cluster['config'];
  /** Which watched objects make their logical cluster a member. Default: the Ready condition is True. */
  isReady?: (binding: KubeObject) => boolean;
  /**
   * What is watched through each virtual workspace (upstream's ObjectToWatch): the logical cluster of every object
   * `isReady` accepts is a member. Default APIBinding. The virtual workspace must serve it across workspaces.
   */
  objectToWatch?: ObjectKind;
  /** The kind of the object named `endpointSliceName` (default APIExportEndpointSlice). */
  endpointSliceKind?: ObjectKind;
  /** Reads its virtual-workspace URLs (upstream's ExtractURLsFromEndpointSlice). Default: `status.endpoints[].url`. */
  extractUrls?: (slice: KubeObject | undefined) => string[];
  /** How long a new cluster's cache may take to sync before the engagement is retried. Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** How long an endpoint may take to answer its first APIBinding list before it is retried. Default 10 s. */
  endpointStartTimeoutMs?: number;
  /** Backoff between retries of failed endpoints and engagements. Defaults: 200 ms doubling to 30 s. */
  retry?: { initialMs?: number; maxMs?: number };
  /** Default: the manager's logger. */
  logger?: Logger;
  /** Default: the manager's metrics. */
  metrics?: MetricsRecorder;
  /**
   * How often each endpoint (shard) is checked for an answer; its logical clusters' status `health` and the
   * per-cluster reachability metric follow it, with one log line per change. false: never. Default every 30 s.
   */
  healthCheck?: HealthCheckOptions | false;
}

const objectKindRule = rule('an ObjectKind ({ apiVersion, kind })', (v) => {
  const k = v as { apiVersion?: unknown; kind?: unknown } | null;
  return typeof k === 'object' && k !== null && typeof k.apiVersion === 'string' && typeof k.kind === 'string';
});

/** What each option must be; required options and the kubeconfig's context are checked in the constructor. */
const optionRules: Shape<ApiExportProviderOptions> = {
  endpointSliceName: anyValue,
  exportConfig: withMethods('a KubeConfig', ['getCurrentCluster']),
  isReady: func,
  objectToWatch: objectKindRule,
  endpointSliceKind: objectKindRule,
  extractUrls: func,
  waitCacheTimeoutMs: positiveMs,
  endpointStartTimeoutMs: positiveMs,
  retry: nested<NonNullable<ApiExportProviderOptions['retry']>>({ initialMs: positiveMs, maxMs: positiveMs }),
  logger: withMethods('a Logger', ['debug', 'info', 'warn', 'error', 'with']),
  metrics: rule('a MetricsRecorder', (v) => typeof v === 'object' && v !== null),
  healthCheck: either(
    rule('false', (v) => v === false),
    nested<HealthCheckOptions>({ intervalMs: positiveMs, timeoutMs: positiveMs }),
  ),
};

/**
 * What a kcp provider follows: the object that lists the virtual-workspace URLs, and the objects that make a logical
 * cluster a member. The APIExport flavour is the default; InitializingWorkspacesProvider passes its own.
 * @internal
 */
export interface KcpFleetSource {
  /** The kind of the object, in the configured workspace, that lists the URLs. */
  readonly sliceKind: ObjectKind;
  /** Its URLs (empty ones are skipped). */
  urls(slice: KubeObject | undefined): string[];
  /** Watched through each endpoint's wildcard view; the logical cluster of each one that counts is a member. */
  readonly memberKind: ObjectKind;
  /**
   * `shared`: members read through their endpoint's wildcard cache; `own`: each member gets a cache (and connection)
   * of its own, for virtual workspaces whose wildcard view serves only `memberKind`.
   */
  readonly memberCaches: 'shared' | 'own';
  /** Names the provider in logs and metrics. */
  readonly owner: string;
}

/** An APIExportEndpointSlice's `status.endpoints[].url`. */
function sliceEndpointUrls(slice: KubeObject | undefined): string[] {
  const endpoints = (slice as { status?: { endpoints?: { url?: unknown }[] } } | undefined)?.status?.endpoints ?? [];
  return endpoints.map((e) => e.url).filter((u): u is string => typeof u === 'string' && u !== '');
}

const apiExportSource: KcpFleetSource = {
  sliceKind: API_EXPORT_ENDPOINT_SLICE,
  urls: sliceEndpointUrls,
  memberKind: API_BINDING,
  memberCaches: 'shared',
  owner: 'kcp-apiexport',
};

interface EndpointSlot {
  readonly url: string;
  endpoint?: Endpoint;
  removed: boolean;
  failures: number;
  timer?: NodeJS.Timeout;
  /** Whether the endpoint answers, once checked; its engaged logical clusters report it. */
  health?: ClusterHealth;
  /** Stops the endpoint's health checks. */
  checking?: AbortController;
}

/**
 * kcp logical clusters bound to an APIExport as a fleet: one member per logical cluster with a Ready APIBinding,
 * reached through the export's virtual workspace on each shard.
 */
export class ApiExportProvider implements ProviderRunnable {
  private readonly clusters: ClusterSet;
  private log: Logger;
  private readonly isReady: (binding: KubeObject) => boolean;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  /** Endpoints in slice order; the first with a Ready binding for a cluster serves it. */
  private readonly slots = new Map<string, EndpointSlot>();
  /** Logical cluster → the endpoint it is engaged through. */
  private readonly engaged = new Map<string, Endpoint>();
  /** Per-cluster work runs one at a time, in order. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly retries = new Map<string, { failures: number; timer?: NodeJS.Timeout }>();
  /** What became of each logical cluster with a Ready binding: engaging, engaged, or failing (and retried). */
  private readonly states = new Map<string, ClusterStatus>();
  private aware: Aware | undefined;
  private metrics: MetricsRecorder | undefined;
  private started = false;
  private stopping = false;

  private readonly source: KcpFleetSource;

  /** @param source what to follow (internal; by default the APIExport flavour, as the options adjust it). */
  constructor(
    private readonly options: ApiExportProviderOptions,
    source?: KcpFleetSource,
  ) {
    this.source = source ?? {
      ...apiExportSource,
      ...(options.endpointSliceKind ? { sliceKind: options.endpointSliceKind } : {}),
      ...(options.extractUrls ? { urls: options.extractUrls } : {}),
      ...(options.objectToWatch ? { memberKind: options.objectToWatch } : {}),
    };
    checkOptions(options, optionRules, (message) => new ApiExportProviderConfigError(message), { prefix: 'options.' });
    if (!options.endpointSliceName) throw new ApiExportProviderConfigError('endpointSliceName is required');
    if (!options.exportConfig?.getCurrentCluster())
      throw new ApiExportProviderConfigError('exportConfig needs a current context whose cluster is the export workspace');
    this.log = this.logFields(options.logger ?? silentLogger);
    this.isReady = options.isReady ?? bindingIsReady;
    this.retryInitialMs = options.retry?.initialMs ?? 200;
    this.retryMaxMs = options.retry?.maxMs ?? 30_000;
    this.clusters = new ClusterSet({
      waitCacheTimeoutMs: options.waitCacheTimeoutMs ?? 30_000,
      ...(options.logger ? { logger: this.log } : {}),
      owner: this.source.owner,
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
  }

  /** Follows the endpoint slice until `signal` aborts, then disengages every cluster and closes every endpoint. */
  async start(signal: AbortSignal, context: ProviderContext): Promise<void> {
    if (this.started) throw new ProviderAlreadyStartedError(this.constructor.name);
    this.started = true;
    if (!this.options.logger) this.log = this.logFields(context.logger);
    this.clusters.useContext({ logger: this.log, metrics: context.metrics });
    this.aware = context.aware;
    this.metrics = this.options.metrics ?? context.metrics;
    const sliceCluster = newCluster(this.options.exportConfig, { name: 'kcp-export-workspace', logger: this.log });
    const running = sliceCluster.start(signal);
    try {
      const informer = await this.sliceInformer(sliceCluster, signal);
      if (informer) {
        const sync = () => this.syncEndpoints(informer);
        informer.addEventHandler({ onAdd: sync, onUpdate: sync, onDelete: sync });
      }
      await running;
    } finally {
      await this.shutdown();
      await running.catch(() => {});
    }
  }

  private logFields(logger: Logger): Logger {
    return logger.with({ provider: this.source.owner, endpointSlice: this.options.endpointSliceName });
  }

  /** The engaged cluster with this logical cluster name or workspace path (`root:org:ws`). */
  async get(name: ClusterName): Promise<Cluster> {
    if (this.clusters.has(name)) return this.clusters.get(name);
    for (const slot of this.slots.values()) {
      const cluster = slot.endpoint?.clusterForPath(name);
      if (cluster !== undefined && this.clusters.has(cluster)) return this.clusters.get(cluster);
    }
    throw new ClusterNotFoundError(name);
  }

  /** The logical cluster name a workspace path maps to, if a binding there was seen. */
  clusterNameForPath(path: string): string | undefined {
    for (const slot of this.slots.values()) {
      const cluster = slot.endpoint?.clusterForPath(path);
      if (cluster !== undefined) return cluster;
    }
    return undefined;
  }

  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.clusters.indexField(kind, field, extract);
  }

  /** Engaged logical clusters, sorted. */
  names(): ClusterName[] {
    return this.clusters.names();
  }

  /**
   * Every logical cluster with a Ready binding on a running endpoint: `pending` while it is being engaged, `engaged`,
   * or `failed` with the reason and the consecutive failures (it is retried with backoff). A cluster whose last Ready
   * binding went is forgotten. Lets the manager's `fleetReadiness` and `/debug/clusters` see a kcp fleet.
   */
  statuses(): Map<ClusterName, ClusterStatus> {
    return new Map(this.states);
  }

  /** The status of one logical cluster (see {@link statuses}). */
  status(name: ClusterName): ClusterStatus | undefined {
    return this.states.get(name);
  }

  /** Endpoint URLs currently running (started successfully), in slice order. */
  endpoints(): string[] {
    return [...this.slots.values()].filter((s) => s.endpoint).map((s) => s.url);
  }

  /** Every endpoint URL of the slice with its consecutive start failures (0 once started). */
  endpointFailures(): Map<string, number> {
    return new Map([...this.slots.values()].map((s) => [s.url, s.failures]));
  }

  /** The slice informer, retried with backoff while the export workspace does not serve apis.kcp.io yet. */
  private async sliceInformer(cluster: ReturnType<typeof newCluster>, signal: AbortSignal): Promise<Informer | undefined> {
    for (let failures = 0; !signal.aborted; failures++) {
      try {
        return await cluster.cache.getInformer(this.source.sliceKind, { signal });
      } catch (err) {
        if (signal.aborted) return undefined;
        this.log.warn('cannot watch the endpoint slice yet; retrying', { error: err instanceof Error ? err.message : String(err) });
        await sleep(this.backoff(failures + 1), signal);
      }
    }
    return undefined;
  }

  private syncEndpoints(informer: Informer): void {
    if (this.stopping) return;
    const urls = [...new Set(this.source.urls(informer.get('', this.options.endpointSliceName)))];
    for (const [url, slot] of this.slots) {
      if (!urls.includes(url))
        this.removeEndpoint(slot).catch((err: unknown) => this.log.error('removing endpoint failed', err, { endpoint: url }));
    }
    for (const url of urls) {
      if (this.slots.has(url)) continue;
      const slot: EndpointSlot = { url, removed: false, failures: 0 };
      this.slots.set(url, slot);
      void this.startEndpoint(slot);
    }
  }

  private async startEndpoint(slot: EndpointSlot): Promise<void> {
    slot.timer = undefined;
    if (slot.removed || this.stopping) return;
    const endpoint = new Endpoint(slot.url, this.options.exportConfig, {
      logger: this.log.with({ endpoint: slot.url }),
      isReady: this.isReady,
      memberKind: this.source.memberKind,
      memberCaches: this.source.memberCaches,
      // reconcile() never rejects (converge's errors are logged and retried) and its chain is awaited by shutdown.
      onChange: (cluster) => void this.reconcile(cluster),
      startTimeoutMs: this.options.endpointStartTimeoutMs ?? 10_000,
    });
    try {
      await endpoint.start();
    } catch (err) {
      if (slot.removed || this.stopping) return;
      slot.failures++;
      const delay = this.backoff(slot.failures);
      this.log.warn('endpoint failed to start; retrying', {
        endpoint: slot.url,
        failures: slot.failures,
        delayMs: delay,
        error: err instanceof Error ? err.message : String(err),
      });
      slot.timer = setTimeout(() => void this.startEndpoint(slot), delay);
      return;
    }
    if (slot.removed || this.stopping) return void (await endpoint.stop());
    slot.failures = 0;
    slot.endpoint = endpoint;
    slot.health = { reachable: true, since: new Date() };
    this.log.info('endpoint started', { endpoint: slot.url });
    if (this.options.healthCheck !== false) {
      slot.checking = new AbortController();
      void this.checkHealth(slot, endpoint, slot.checking.signal, this.options.healthCheck ?? {});
    }
    // Not awaited: each cluster's convergence runs on its own chain, which shutdown awaits; reconcile never rejects.
    for (const cluster of endpoint.clusters()) void this.reconcile(cluster);
  }

  private async removeEndpoint(slot: EndpointSlot): Promise<void> {
    slot.removed = true;
    clearTimeout(slot.timer);
    slot.checking?.abort();
    this.slots.delete(slot.url);
    const endpoint = slot.endpoint;
    if (!endpoint) return;
    slot.endpoint = undefined;
    const affected = [...this.engaged].filter(([, e]) => e === endpoint).map(([c]) => c);
    await Promise.all(affected.map((c) => this.reconcile(c)));
    await endpoint.stop();
    this.log.info('endpoint removed', { endpoint: slot.url });
  }

  /** Converges one logical cluster: engaged through the first endpoint with a Ready binding for it, or not at all. */
  private reconcile(cluster: string): Promise<void> {
    const next = (this.chains.get(cluster) ?? Promise.resolve()).then(() => this.converge(cluster));
    const tail = next.catch(() => {});
    this.chains.set(cluster, tail);
    void tail.then(() => {
      if (this.chains.get(cluster) === tail) this.chains.delete(cluster);
    });
    return tail;
  }

  private async converge(cluster: string): Promise<void> {
    const desired = this.stopping ? undefined : [...this.slots.values()].map((s) => s.endpoint).find((e) => e?.hasReadyBinding(cluster));
    const current = this.engaged.get(cluster);
    if (current === desired) return;
    if (current) {
      this.engaged.delete(cluster);
      await this.clusters.remove(cluster);
      this.log.info('logical cluster disengaged', { logicalCluster: cluster });
    }
    if (!desired || !this.aware) {
      this.states.delete(cluster);
      return;
    }
    this.engaged.set(cluster, desired);
    const failures = this.retries.get(cluster)?.failures ?? 0;
    this.setState(cluster, 'pending', failures);
    try {
      await this.clusters.add(cluster, desired.view(cluster), this.aware);
      this.retries.delete(cluster);
      this.setState(cluster, 'engaged', 0);
    } catch (err) {
      if (this.engaged.get(cluster) === desired) this.engaged.delete(cluster);
      if (this.stopping) return;
      const retry = this.retries.get(cluster) ?? { failures: 0 };
      retry.failures++;
      clearTimeout(retry.timer);
      const delay = this.backoff(retry.failures);
      retry.timer = setTimeout(() => void this.reconcile(cluster), delay);
      this.retries.set(cluster, retry);
      this.setState(cluster, 'failed', retry.failures, describeError(err));
      this.log.error('engaging logical cluster failed; retrying', err, { logicalCluster: cluster, delayMs: delay });
    }
  }

  private setState(cluster: string, state: ClusterStatus['state'], failures: number, reason?: string): void {
    if (this.stopping) return;
    const before = this.states.get(cluster);
    const since = before?.state === state ? before.since : new Date();
    const health = state === 'engaged' ? this.slotOf(this.engaged.get(cluster))?.health : undefined;
    this.states.set(cluster, { state, since, failures, ...(reason === undefined ? {} : { reason }), ...(health ? { health } : {}) });
    if (health) this.metrics?.clusterReachable?.(cluster, health.reachable);
  }

  private slotOf(endpoint: Endpoint | undefined): EndpointSlot | undefined {
    return endpoint ? [...this.slots.values()].find((s) => s.endpoint === endpoint) : undefined;
  }

  /**
   * Checks one endpoint every `intervalMs` until `signal` aborts; a change of its reachability reaches the status and
   * metric of every logical cluster engaged through it, with one log line for the endpoint.
   */
  private async checkHealth(slot: EndpointSlot, endpoint: Endpoint, signal: AbortSignal, options: HealthCheckOptions): Promise<void> {
    const intervalMs = options.intervalMs ?? 30_000;
    const timeoutMs = options.timeoutMs ?? 5_000;
    while (await sleep(intervalMs, signal)) {
      const problem = await endpoint.ping(signal, timeoutMs);
      if (signal.aborted || this.stopping) return;
      if ((problem === undefined) === slot.health?.reachable) continue;
      slot.health = { reachable: problem === undefined, since: new Date(), ...(problem === undefined ? {} : { lastError: problem }) };
      const clusters = [...this.engaged].filter(([, e]) => e === endpoint).map(([c]) => c);
      for (const cluster of clusters) {
        const status = this.states.get(cluster);
        if (status?.state === 'engaged') this.states.set(cluster, { ...status, health: slot.health });
        this.metrics?.clusterReachable?.(cluster, slot.health.reachable);
      }
      if (problem === undefined) this.log.info('endpoint answers again', { endpoint: slot.url, clusters: clusters.length });
      else {
        this.log.warn('endpoint does not answer; its logical clusters stay engaged while their informers retry', {
          endpoint: slot.url,
          clusters: clusters.length,
          error: problem,
        });
      }
    }
  }

  private backoff(failures: number): number {
    return Math.min(this.retryMaxMs, this.retryInitialMs * 2 ** Math.max(0, failures - 1));
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    for (const r of this.retries.values()) clearTimeout(r.timer);
    this.retries.clear();
    await Promise.all([...this.chains.values()]);
    this.engaged.clear();
    await this.clusters.removeAll();
    this.states.clear();
    const slots = [...this.slots.values()];
    this.slots.clear();
    await Promise.all(
      slots.map(async (s) => {
        s.removed = true;
        clearTimeout(s.timer);
        s.checking?.abort();
        await s.endpoint?.stop();
      }),
    );
  }
}
