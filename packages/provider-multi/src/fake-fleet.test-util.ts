/**
 * Test support for MultiProvider's composition logic: a cluster that only runs and records the field indexes it
 * got, a ClusterSet-backed provider the test adds clusters to, and an Aware that records engagements. The
 * composition with real providers and API servers is tested in provider-kubeconfig.
 */
import { silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import { ClusterSet } from '@multicluster-runtime/core/providers';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type {
  Aware,
  Cache,
  Client,
  Cluster,
  ClusterName,
  IndexerFunc,
  ObjectKind,
  ProviderContext,
  ProviderRunnable,
} from '@multicluster-runtime/core';
import type { RESTMapper } from '@multicluster-runtime/core/client';

function unsupported(what: string): never {
  throw new Error(`FakeCluster does not implement ${what}`);
}

export class FakeCluster implements Cluster {
  readonly config: Cluster['config'];
  readonly client = new Proxy({}, { get: (_t, p) => () => unsupported(`client.${String(p)}`) }) as Client;
  readonly apiReader = this.client;
  getEventRecorderFor(): never {
    return unsupported('getEventRecorderFor');
  }
  readonly restMapper = new Proxy({}, { get: (_t, p) => () => unsupported(`restMapper.${String(p)}`) }) as RESTMapper;
  readonly cache: Cache;
  readonly fieldIndexer: Cache;
  /** `Kind:field` of every index applied, in order. */
  readonly indexed: string[] = [];
  running = false;

  constructor(readonly name: string) {
    this.config = loadUntrustedKubeconfig(
      JSON.stringify({
        'current-context': 'ctx',
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        clusters: [{ name: 'c', cluster: { server: `https://${name}.example:6443` } }],
        users: [{ name: 'u', user: { token: 't' } }],
      }),
    );
    const indexField = (kind: ObjectKind, field: string, _extract: IndexerFunc): Promise<void> => {
      const key = `${kind.kind}:${field}`;
      // As a real cache: the same index twice is a conflict.
      if (this.indexed.includes(key)) return Promise.reject(new Error(`index conflict: ${key}`));
      this.indexed.push(key);
      return Promise.resolve();
    };
    this.cache = new Proxy({} as Cache, {
      get: (_t, p) => (p === 'indexField' ? indexField : () => unsupported(`cache.${String(p)}`)),
    });
    this.fieldIndexer = this.cache;
  }

  async start(signal: AbortSignal): Promise<void> {
    this.running = true;
    await whenAborted(signal);
    this.running = false;
  }

  waitForCacheSync(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

/** A provider built on ClusterSet, as real ones are; the test decides which clusters exist. */
export class FakeProvider implements ProviderRunnable {
  readonly set = new ClusterSet({ waitCacheTimeoutMs: 5_000 });
  /** `Kind:field` of every indexField call the provider received. */
  readonly indexCalls: string[] = [];
  starts = 0;
  running = false;
  /** Makes `start` reject at once. */
  failStartWith: Error | undefined;
  private aware: Aware | undefined;
  /** The context of the last start. */
  context: ProviderContext | undefined;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly behaviour: { disengageOnStop?: boolean } = {}) {}

  async start(signal: AbortSignal, context: ProviderContext): Promise<void> {
    this.starts++;
    if (this.failStartWith) throw this.failStartWith;
    this.context = context;
    this.aware = context.aware;
    this.running = true;
    for (const w of this.waiters.splice(0)) w();
    try {
      await whenAborted(signal);
    } finally {
      this.running = false;
      // A badly behaved provider returns without disengaging its clusters.
      if (this.behaviour.disengageOnStop !== false) await this.set.removeAll();
    }
  }

  /** Adds and engages a cluster (waits until the provider has been started). */
  async addCluster(name: ClusterName): Promise<FakeCluster> {
    if (!this.aware) await new Promise<void>((resolve) => this.waiters.push(resolve));
    const cluster = new FakeCluster(name);
    await this.set.add(name, cluster, this.aware);
    return cluster;
  }

  get(name: ClusterName): Promise<Cluster> {
    return this.set.get(name);
  }

  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    this.indexCalls.push(`${kind.kind}:${field}`);
    await this.set.indexField(kind, field, extract);
  }
}

export interface Engagement {
  readonly name: ClusterName;
  readonly cluster: Cluster;
  readonly signal: AbortSignal;
}

/** Records every engagement it is given, like a manager would receive them. */
export class RecordingAware implements Aware {
  readonly engagements: Engagement[] = [];
  failWith: Error | undefined;

  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    if (this.failWith) return Promise.reject(this.failWith);
    this.engagements.push({ name, cluster, signal });
    return Promise.resolve();
  }

  /** Names engaged and not yet disengaged, sorted. */
  live(): ClusterName[] {
    return this.engagements
      .filter((e) => !e.signal.aborted)
      .map((e) => e.name)
      .sort();
  }

  /** A start context engaging through this Aware: no host cluster unless given, silent logs, no metrics. */
  context(extra: Partial<ProviderContext> = {}): ProviderContext {
    return { aware: this, logger: silentLogger, metrics: noopMetrics, ...extra };
  }
}
