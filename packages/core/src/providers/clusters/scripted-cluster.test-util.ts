/**
 * Test support: a Cluster whose lifecycle a test scripts (when its cache syncs, whether start fails, which indexes
 * it got), for exercising lifecycle logic without a network. Integration tests use real clusters instead.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Cache, IndexerFunc } from '../../cache/types.js';
import type { Client, RESTMapper } from '../../client/types.js';
import type { Cluster } from '../../cluster/types.js';
import { silentLogger } from '../../log/logger.js';
import { noopMetrics } from '../../metrics/types.js';
import type { ProviderContext } from '../../multicluster/types.js';
import type { ObjectKind } from '../../object/types.js';

export function kubeconfigFor(server: string, token = 't'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

function unsupported(what: string): never {
  throw new Error(`ScriptedCluster does not implement ${what}`);
}

export class ScriptedCluster implements Cluster {
  readonly config: KubeConfig;
  readonly client: Client;
  readonly apiReader: Client;
  readonly restMapper = new Proxy({}, { get: (_t, p) => () => unsupported(`restMapper.${String(p)}`) }) as RESTMapper;
  readonly cache: Cache;
  readonly fieldIndexer: Cache;
  readonly indexed: string[] = [];
  running = false;
  starts = 0;
  /** Resolves/rejects `start` before the signal aborts when set. */
  failStartWith: Error | undefined;
  /** Makes indexField reject. */
  failIndexWith: Error | undefined;
  private syncedNow: boolean;
  private readonly syncWaiters = new Set<() => void>();
  private stopResolvers = new Set<() => void>();

  constructor(
    readonly name: string,
    options: { synced?: boolean; server?: string; client?: Client } = {},
  ) {
    this.config = kubeconfigFor(options.server ?? `https://${name}.example:6443`);
    this.client = options.client ?? (new Proxy({}, { get: (_t, p) => () => unsupported(`client.${String(p)}`) }) as Client);
    this.apiReader = this.client;
    this.syncedNow = options.synced ?? true;
    const indexField = async (kind: ObjectKind, field: string, _extract: IndexerFunc): Promise<void> => {
      if (this.failIndexWith) throw this.failIndexWith;
      this.indexed.push(`${kind.kind}:${field}`);
    };
    this.cache = new Proxy({} as Cache, {
      get: (_t, p) => (p === 'indexField' ? indexField : () => unsupported(`cache.${String(p)}`)),
    });
    this.fieldIndexer = this.cache;
  }

  getEventRecorderFor(): never {
    return unsupported('getEventRecorderFor');
  }

  async start(signal: AbortSignal): Promise<void> {
    this.starts++;
    this.running = true;
    try {
      if (this.failStartWith) throw this.failStartWith;
      await new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        this.stopResolvers.add(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      this.running = false;
    }
  }

  /** Makes `start` return although nobody aborted it (a cluster that dies on its own). */
  crash(): void {
    for (const r of this.stopResolvers) r();
    this.stopResolvers.clear();
  }

  markSynced(): void {
    this.syncedNow = true;
    for (const w of this.syncWaiters) w();
    this.syncWaiters.clear();
  }

  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    if (this.syncedNow) return true;
    return new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      const onSync = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const onAbort = () => {
        this.syncWaiters.delete(onSync);
        resolve(false);
      };
      this.syncWaiters.add(onSync);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** An Aware that records engagements and whether each is still live. */
export class RecordingAware {
  readonly engaged = new Map<string, { cluster: Cluster; signal: AbortSignal }>();
  readonly log: string[] = [];
  failWith: Error | undefined;

  async engage(signal: AbortSignal, name: string, cluster: Cluster): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.log.push(`engage ${name}`);
    this.engaged.set(name, { cluster, signal });
    signal.addEventListener(
      'abort',
      () => {
        this.log.push(`disengage ${name}`);
        if (this.engaged.get(name)?.signal === signal) this.engaged.delete(name);
      },
      { once: true },
    );
  }

  live(): string[] {
    return [...this.engaged.keys()].sort();
  }

  /** A start context engaging through this Aware, with no host cluster, logs or metrics. */
  context(): ProviderContext {
    return { aware: this, logger: silentLogger, metrics: noopMetrics };
  }
}
