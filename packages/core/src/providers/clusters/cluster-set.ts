/**
 * The cluster lifecycle helper for provider authors.
 * A provider that discovers clusters hands each one to a ClusterSet, which starts it, waits for its cache (with a
 * timeout), applies the fleet's field indexes exactly once, and engages it; removing or replacing a cluster aborts
 * its lifetime signal, which stops its cache and disengages it everywhere. Every entry is identified by instance,
 * never by name alone, so a replaced cluster that exits late can never remove its successor.
 */
import type { IndexerFunc } from '../../cache/types.js';
import type { Cluster } from '../../cluster/types.js';
import { connectionFingerprint } from '../../kubeconfig/untrusted.js';
import { silentLogger, type Logger } from '../../log/logger.js';
import { linkedAbort } from '../../signal/linked.js';
import type { MetricsRecorder } from '../../metrics/types.js';
import { ClusterNotFoundError } from '../../multicluster/errors.js';
import type { ClusterName } from '../../fleet/cluster-name.js';
import type { Aware, Provider, ProviderContext } from '../../multicluster/types.js';
import type { ObjectKind } from '../../object/types.js';
import {
  CacheSyncTimeoutError,
  ClusterAddAbortedError,
  ClusterAlreadyExistsError,
  ClusterEngageFailedError,
  ClusterIndexFailedError,
  ClusterStartFailedError,
  IndexFieldError,
} from '../errors.js';

/**
 * Options of a ClusterSet: sync timeout, logging, metrics, when to keep a present cluster, and what to do when one is lost.
 */
export interface ClusterSetOptions {
  /** How long `add` waits for a new cluster's cache to sync before giving up on it. Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** Default: the logger of the provider's start context (see `useContext`), silent until then. */
  logger?: Logger;
  /**
   * Whether `addOrReplace` may keep the present cluster instead of `candidate`. Default: the same instance, or the
   * same connection (server, CA, user and credentials, per `connectionFingerprint`).
   */
  sameCluster?: (present: Cluster, candidate: Cluster) => boolean;
  /** Reports the number of engaged clusters as `engagedClusters(owner, n)`. Default: the start context's metrics. */
  metrics?: MetricsRecorder;
  /** The owner label for that gauge (usually the provider's name). Default "cluster-set". */
  owner?: string;
  /**
   * Called when an engaged cluster stops or fails on its own (not removed or replaced); it has been dropped and
   * disengaged by then. Providers use it to reconnect. `error` is what its `start` threw, if anything.
   */
  onClusterLost?: (name: ClusterName, cluster: Cluster, error: unknown) => void;
}

/**
 * Options of one ClusterSet `add`.
 */
export interface AddOptions {
  /** Aborts the add (the cluster is stopped and not engaged). The cluster's lifetime is not tied to it. */
  signal?: AbortSignal;
}

/** What `addOrReplace` did. */
export type AddOrReplaceOutcome = 'added' | 'replaced' | 'unchanged';

interface IndexRecord {
  readonly kind: ObjectKind;
  readonly field: string;
  readonly extract: IndexerFunc;
}

interface Entry {
  readonly name: ClusterName;
  readonly cluster: Cluster;
  /** The cluster's lifetime: aborting it stops the cluster and disengages it. */
  readonly life: AbortController;
  readonly log: Logger;
  /** Recorded indexes are being applied; indexes registered from now on apply themselves to this entry. */
  indexing: boolean;
  /** Synced and indexed: `get` returns it (also during engage, so early reconciles find it). */
  visible: boolean;
  readonly applied: Set<IndexRecord>;
  /** Settles when `cluster.start` has returned. */
  stopped: Promise<void>;
  startError?: { error: unknown };
}

/** Default `sameCluster`: same instance or same connection details. */
export function sameConnection(present: Cluster, candidate: Cluster): boolean {
  if (present === candidate) return true;
  try {
    return connectionFingerprint(present.config) === connectionFingerprint(candidate.config);
  } catch {
    return false;
  }
}

export class ClusterSet implements Provider {
  private readonly entries = new Map<ClusterName, Entry>();
  private readonly indexes: IndexRecord[] = [];
  private readonly waitCacheTimeoutMs: number;
  private log: Logger;
  private metrics: MetricsRecorder | undefined;
  private readonly sameCluster: (present: Cluster, candidate: Cluster) => boolean;

  constructor(private readonly options: ClusterSetOptions = {}) {
    this.waitCacheTimeoutMs = options.waitCacheTimeoutMs ?? 30_000;
    this.log = options.logger ?? silentLogger;
    this.metrics = options.metrics;
    this.sameCluster = options.sameCluster ?? sameConnection;
  }

  /**
   * Logs and records through the provider's start context from now on, where the options named no logger or
   * metrics of their own. A provider calls it when it starts, before it adds clusters.
   */
  useContext(context: Pick<ProviderContext, 'logger' | 'metrics'>): void {
    if (!this.options.logger) this.log = context.logger;
    if (!this.options.metrics) this.metrics = context.metrics;
  }

  /**
   * Starts `cluster`, waits for its cache, applies recorded field indexes, then engages it with `aware` under
   * `name`. Resolves once engaged. On any failure the cluster is stopped, nothing stays registered, and the
   * returned promise rejects with a ClusterLifecycleError saying what failed.
   */
  async add(name: ClusterName, cluster: Cluster, aware?: Aware, options: AddOptions = {}): Promise<void> {
    if (this.entries.has(name)) throw new ClusterAlreadyExistsError(name);
    const entry: Entry = {
      name,
      cluster,
      life: new AbortController(),
      log: this.log.with({ cluster: name }),
      indexing: false,
      visible: false,
      applied: new Set(),
      stopped: Promise.resolve(),
    };
    this.entries.set(name, entry);
    entry.stopped = this.run(entry);

    await this.waitForSync(entry, options.signal);
    entry.indexing = true;
    for (const index of [...this.indexes]) {
      try {
        await this.applyIndex(entry, index);
      } catch (err) {
        await this.drop(entry);
        throw new ClusterIndexFailedError(name, index.field, err);
      }
    }
    if (!this.isCurrent(entry) || options.signal?.aborted) {
      await this.drop(entry);
      throw new ClusterAddAbortedError(name);
    }
    entry.visible = true;
    this.reportEngaged();
    if (aware) {
      try {
        await aware.engage(entry.life.signal, name, cluster);
      } catch (err) {
        entry.log.error('engaging cluster failed; stopping it', err);
        await this.drop(entry);
        throw new ClusterEngageFailedError(name, err);
      }
    }
    entry.log.info('cluster engaged');
  }

  /**
   * Adds `cluster`, or replaces the present cluster of that name when `cluster` is a different one (see
   * `sameCluster`). When the present one is kept, `cluster` is left untouched (never started) for the caller to drop.
   */
  async addOrReplace(name: ClusterName, cluster: Cluster, aware?: Aware, options: AddOptions = {}): Promise<AddOrReplaceOutcome> {
    const present = this.entries.get(name);
    if (present) {
      if (this.sameCluster(present.cluster, cluster)) return 'unchanged';
      present.log.info('cluster changed; replacing it');
      void this.remove(name);
    }
    await this.add(name, cluster, aware, options);
    return present ? 'replaced' : 'added';
  }

  /**
   * Stops and disengages the cluster of that name (a no-op if there is none). Returns at once; the promise settles
   * when the cluster's `start` has returned, and never rejects.
   */
  remove(name: ClusterName): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return Promise.resolve();
    this.entries.delete(name);
    entry.log.info('removing cluster');
    entry.life.abort();
    this.reportEngaged();
    return entry.stopped;
  }

  /** Removes every cluster and waits until all have stopped (call when the provider shuts down). */
  async removeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((name) => this.remove(name)));
  }

  /** The engaged cluster; ClusterNotFoundError while it is unknown or still starting. */
  get(name: ClusterName): Promise<Cluster> {
    const entry = this.entries.get(name);
    return entry?.visible ? Promise.resolve(entry.cluster) : Promise.reject(new ClusterNotFoundError(name));
  }

  /** Names of engaged clusters, sorted. */
  names(): ClusterName[] {
    return [...this.entries.values()]
      .filter((e) => e.visible)
      .map((e) => e.name)
      .sort();
  }

  /** True if a cluster of that name is engaged or starting. */
  has(name: ClusterName): boolean {
    return this.entries.has(name);
  }

  /**
   * Records a field index for every cluster added later and applies it to the present ones, exactly once per
   * cluster. A kind and field can be registered once.
   */
  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    if (this.indexes.some((i) => i.field === field && i.kind.apiVersion === kind.apiVersion && i.kind.kind === kind.kind)) {
      throw new IndexFieldError(`field ${JSON.stringify(field)} of ${kind.apiVersion}/${kind.kind} is already indexed`);
    }
    const index: IndexRecord = { kind, field, extract };
    this.indexes.push(index);
    const failures = new Map<ClusterName, unknown>();
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => e.indexing)
        .map(async (e) => {
          try {
            await this.applyIndex(e, index);
          } catch (err) {
            failures.set(e.name, err);
          }
        }),
    );
    if (failures.size > 0) {
      throw new IndexFieldError(
        `indexing ${JSON.stringify(field)} of ${kind.apiVersion}/${kind.kind} failed on clusters ${[...failures.keys()].map((n) => JSON.stringify(n)).join(', ')}`,
        failures,
      );
    }
  }

  private async applyIndex(entry: Entry, index: IndexRecord): Promise<void> {
    if (entry.applied.has(index)) return;
    entry.applied.add(index);
    await entry.cluster.fieldIndexer.indexField(index.kind, index.field, index.extract);
  }

  /** Runs the cluster; when it returns, removes its own entry only (never a successor under the same name). */
  private async run(entry: Entry): Promise<void> {
    try {
      await entry.cluster.start(entry.life.signal);
      if (!entry.life.signal.aborted) entry.log.warn('cluster stopped on its own; removing it');
    } catch (err) {
      entry.startError = { error: err };
      entry.log.error('cluster failed; removing it', err);
    } finally {
      const lost = this.entries.get(entry.name) === entry;
      if (lost) {
        this.entries.delete(entry.name);
        this.reportEngaged();
      }
      // The failure is the abort reason, so whatever the cluster was engaged with can tell why it went.
      entry.life.abort(entry.startError?.error);
      // Only engaged clusters: a cluster that fails while being added is reported by add() itself.
      if (lost && entry.visible) this.notifyLost(entry);
    }
  }

  private notifyLost(entry: Entry): void {
    try {
      this.options.onClusterLost?.(entry.name, entry.cluster, entry.startError?.error);
    } catch (err) {
      entry.log.error('onClusterLost callback threw', err);
    }
  }

  private async waitForSync(entry: Entry, callerSignal: AbortSignal | undefined): Promise<void> {
    const wait = linkedAbort(entry.life.signal, callerSignal);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      wait.abort();
    }, this.waitCacheTimeoutMs);
    let synced = false;
    let syncError: unknown;
    try {
      synced = await entry.cluster.waitForCacheSync(wait.signal);
    } catch (err) {
      syncError = err;
    } finally {
      clearTimeout(timer);
      wait.dispose();
    }
    if (synced && this.isCurrent(entry) && !callerSignal?.aborted) return;
    await this.drop(entry);
    if (entry.startError) throw new ClusterStartFailedError(entry.name, entry.startError.error);
    if (syncError !== undefined) throw new ClusterStartFailedError(entry.name, syncError);
    if (timedOut) {
      entry.log.warn('cache did not sync in time; cluster not engaged', { timeoutMs: this.waitCacheTimeoutMs });
      throw new CacheSyncTimeoutError(entry.name, this.waitCacheTimeoutMs);
    }
    throw new ClusterAddAbortedError(entry.name);
  }

  private isCurrent(entry: Entry): boolean {
    return this.entries.get(entry.name) === entry && !entry.life.signal.aborted;
  }

  /** Stops an entry that failed to come up and waits for it to stop. */
  private async drop(entry: Entry): Promise<void> {
    if (this.entries.get(entry.name) === entry) {
      this.entries.delete(entry.name);
      this.reportEngaged();
    }
    entry.life.abort();
    await entry.stopped;
  }

  /** Runs at every add and removal, so it counts instead of building the sorted `names()`: O(n), not O(n log n). */
  private reportEngaged(): void {
    if (!this.metrics) return;
    let engaged = 0;
    for (const entry of this.entries.values()) if (entry.visible) engaged++;
    this.metrics.engagedClusters(this.options.owner ?? 'cluster-set', engaged);
  }
}
