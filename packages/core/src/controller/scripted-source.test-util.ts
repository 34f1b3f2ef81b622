/**
 * Test support: a multi-cluster source the test drives by hand (emit a request "from" a cluster) and that records
 * which clusters it runs on, for exercising the controller's engagement and reconcile logic without a network.
 * Integration tests use Kind sources over real API servers instead.
 */
import type { Cluster } from '../cluster/types.js';
import type { RequestQueue } from '../handler/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Request } from '../reconcile/types.js';
import type { MultiClusterSource, Source } from '../source/types.js';

interface Running {
  readonly cluster: Cluster;
  readonly queue: RequestQueue;
  readonly signal: AbortSignal;
}

export class ScriptedSource implements MultiClusterSource {
  /** Per-cluster sources currently running, by cluster name. */
  readonly running = new Map<ClusterName, Running>();
  readonly log: string[] = [];
  /** Clusters for which forCluster returns undefined. */
  readonly skip = new Set<ClusterName>();
  /** Makes the next start for this cluster reject. */
  failStart = new Set<ClusterName>();
  /** Makes start for this cluster hang until its signal aborts (an API server that does not answer). */
  readonly hang = new Set<ClusterName>();
  synced = true;

  forCluster(name: ClusterName, cluster: Cluster): Source | undefined {
    if (this.skip.has(name)) return undefined;
    return {
      start: async (signal, queue) => {
        if (this.failStart.delete(name)) throw new Error(`scripted start failure for ${name}`);
        if (this.hang.has(name)) {
          this.log.push(`hang ${name}`);
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        }
        if (signal.aborted) return;
        this.log.push(`start ${name}`);
        const entry = { cluster, queue, signal };
        this.running.set(name, entry);
        signal.addEventListener(
          'abort',
          () => {
            this.log.push(`stop ${name}`);
            if (this.running.get(name) === entry) this.running.delete(name);
          },
          { once: true },
        );
      },
      waitForSync: (signal) => {
        if (this.synced) return Promise.resolve(true);
        return new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
      },
    };
  }

  /** Enqueues a request through the source running for `from` (throws if none runs there). */
  emit(from: ClusterName, req: Partial<Request> & { name: string }): void {
    const r = this.running.get(from);
    if (!r) throw new Error(`no source running for cluster ${JSON.stringify(from)}`);
    r.queue.add({ clusterName: req.clusterName ?? from, namespace: req.namespace ?? 'default', name: req.name });
  }

  clusters(): ClusterName[] {
    return [...this.running.keys()].sort();
  }
}

/** A static source the test drives by hand. */
export class ScriptedStaticSource implements Source {
  queue: RequestQueue | undefined;
  signal: AbortSignal | undefined;
  synced = true;
  async start(signal: AbortSignal, queue: RequestQueue): Promise<void> {
    this.queue = queue;
    this.signal = signal;
  }
  async waitForSync(signal: AbortSignal): Promise<boolean> {
    if (this.synced) return true;
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
  }
  emit(req: Request): void {
    if (!this.queue) throw new Error('static source not started');
    this.queue.add(req);
  }
}
