/**
 * What an operator asks first about a fleet — which members are there, how each is doing, whether its work is piling
 * up, when it was last reconciled — answered from what the runtime already records. The ledger sits in front of the
 * manager's MetricsRecorder (every call is passed on unchanged) and keeps, per cluster, the queue depth summed over
 * the controllers' queues and the last reconcile; `/debug/clusters` joins that with the provider's statuses.
 */
import type { ClusterName } from '../fleet/cluster-name.js';
import type { EventDropReason, MetricsRecorder, ReconcileOutcome } from '../metrics/types.js';
import type { ClusterStatus } from '../providers/engager/cluster-status.js';
import type { StatusSource } from '../providers/engager/readiness.js';

/** How many disengaged cluster names are remembered to drop their late writes (oldest forgotten first). */
const maxForgotten = 10_000;

interface Entry {
  depths: Map<string, number>;
  /** Written on every reconcile, so kept as a number and updated in place. */
  lastReconcile?: { atMs: number; controller: string; outcome: ReconcileOutcome };
}

/** One member as `/debug/clusters` shows it. Reasons and errors are the provider's, which never carry credentials. */
export interface ClusterReport {
  name: ClusterName;
  /** Engaged with this manager (its controllers reconcile it). */
  engaged: boolean;
  /** The provider's view, when it reports statuses. */
  state?: ClusterStatus['state'];
  reason?: string;
  since?: string;
  failures?: number;
  health?: { reachable: boolean; since: string; lastError?: string };
  /** Items waiting in the controllers' queues for this cluster. */
  queueDepth: number;
  lastReconcile?: { at: string; controller: string; outcome: ReconcileOutcome };
}

export class FleetLedger implements MetricsRecorder {
  private readonly entries = new Map<ClusterName, Entry>();
  /** Disengaged clusters: late writes (a reconcile in flight, a queue draining) are not recorded until re-engaged. */
  private readonly forgotten = new Set<ClusterName>();

  /**
   * The wrapped recorder's Prometheus registry when it has one (core's PrometheusMetrics does), so code that finds
   * the manager's registry through `mgr.metrics.registry` (the webhook server's metrics) still finds it.
   */
  readonly registry: unknown;

  constructor(readonly inner: MetricsRecorder) {
    this.registry = (inner as { registry?: unknown }).registry;
  }

  reconcileDone(controller: string, cluster: ClusterName, outcome: ReconcileOutcome, seconds: number): void {
    const entry = this.entry(cluster);
    if (entry) {
      const last = (entry.lastReconcile ??= { atMs: 0, controller, outcome });
      last.atMs = Date.now();
      last.controller = controller;
      last.outcome = outcome;
    }
    this.inner.reconcileDone(controller, cluster, outcome, seconds);
  }

  queueDepth(queue: string, cluster: ClusterName, depth: number): void {
    this.entry(cluster)?.depths.set(queue, depth);
    this.inner.queueDepth(queue, cluster, depth);
  }

  forgetCluster(cluster: ClusterName): void {
    this.entries.delete(cluster);
    this.forgotten.delete(cluster);
    this.forgotten.add(cluster);
    // Bounded like the Prometheus recorder's: a fleet that churns through names must not grow this for ever.
    if (this.forgotten.size > maxForgotten) this.forgotten.delete(this.forgotten.values().next().value!);
    this.inner.forgetCluster(cluster);
  }

  activeWorkers(controller: string, count: number): void {
    this.inner.activeWorkers(controller, count);
  }
  queueAdd(queue: string, cluster: ClusterName): void {
    this.inner.queueAdd(queue, cluster);
  }
  queueLatency(queue: string, cluster: ClusterName, seconds: number): void {
    this.inner.queueLatency(queue, cluster, seconds);
  }
  queueRetry(queue: string, cluster: ClusterName): void {
    this.inner.queueRetry(queue, cluster);
  }
  informerState(cluster: ClusterName, kind: string, watching: boolean, failures: number): void {
    this.inner.informerState(cluster, kind, watching, failures);
  }
  engagedClusters(owner: string, count: number): void {
    this.inner.engagedClusters(owner, count);
  }
  clusterEngaged(cluster: ClusterName): void {
    this.forgotten.delete(cluster);
    this.inner.clusterEngaged?.(cluster);
  }
  eventDropped(cluster: ClusterName, reason: EventDropReason): void {
    this.inner.eventDropped?.(cluster, reason);
  }
  clusterReachable(cluster: ClusterName, reachable: boolean): void {
    this.inner.clusterReachable?.(cluster, reachable);
  }
  cacheLimitExceeded(cluster: ClusterName, limit: 'objects' | 'bytes'): void {
    this.inner.cacheLimitExceeded?.(cluster, limit);
  }

  /** Every cluster the manager engaged, the provider knows or the ledger saw work for, sorted by name. */
  report(engaged: readonly ClusterName[], provider: StatusSource | undefined): ClusterReport[] {
    const statuses = provider?.statuses() ?? new Map<ClusterName, ClusterStatus>();
    const live = new Set(engaged);
    const names = new Set<ClusterName>([...engaged, ...statuses.keys(), ...this.entries.keys()]);
    return [...names].sort().map((name) => {
      const entry = this.entries.get(name);
      const status = statuses.get(name);
      let queueDepth = 0;
      for (const depth of entry?.depths.values() ?? []) queueDepth += depth;
      return {
        name,
        engaged: live.has(name),
        ...(status ? statusFields(status) : {}),
        queueDepth,
        ...(entry?.lastReconcile ? { lastReconcile: lastReconcileReport(entry.lastReconcile) } : {}),
      };
    });
  }

  private entry(cluster: ClusterName): Entry | undefined {
    if (this.forgotten.has(cluster)) return undefined;
    let entry = this.entries.get(cluster);
    if (!entry) {
      entry = { depths: new Map() };
      this.entries.set(cluster, entry);
    }
    return entry;
  }
}

function lastReconcileReport(last: NonNullable<Entry['lastReconcile']>): ClusterReport['lastReconcile'] {
  return { at: new Date(last.atMs).toISOString(), controller: last.controller, outcome: last.outcome };
}

function statusFields(status: ClusterStatus): Partial<ClusterReport> {
  const health = status.health;
  return {
    state: status.state,
    ...(status.reason !== undefined ? { reason: status.reason } : {}),
    since: status.since.toISOString(),
    failures: status.failures,
    ...(health
      ? {
          health: {
            reachable: health.reachable,
            since: health.since.toISOString(),
            ...(health.lastError ? { lastError: health.lastError } : {}),
          },
        }
      : {}),
  };
}
