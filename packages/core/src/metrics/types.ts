/**
 * What the runtime records. Implemented over prom-client in ./prometheus.ts; every series that concerns a cluster
 * carries a `cluster` label, so a fleet's dashboards can tell one member's trouble from another's.
 */
import type { ClusterName } from '../fleet/cluster-name.js';

/** How a reconcile ended: the `result` label of the `<prefix>reconcile_total` counter. */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after' | 'terminal_error' | 'cluster_not_found';

/** Why an event was not written: the queue was full, the object hit its spam limit, the API refused it, or the cluster stopped. */
export type EventDropReason = 'queue_full' | 'spam' | 'write_failed' | 'stopped';

/**
 * What the runtime records (reconciles, queues, informers, engagement, events, reachability); implement it to send
 * the figures elsewhere, or use {@link PrometheusMetrics}.
 */
export interface MetricsRecorder {
  /** One finished reconcile and how long it took. */
  reconcileDone(controller: string, cluster: ClusterName, outcome: ReconcileOutcome, seconds: number): void;
  /** Workers busy now, per controller. */
  activeWorkers(controller: string, count: number): void;
  /** An item was added to a controller's queue. */
  queueAdd(queue: string, cluster: ClusterName): void;
  /** Items waiting, per cluster. */
  queueDepth(queue: string, cluster: ClusterName, depth: number): void;
  /** Time an item waited in the queue before a worker took it. */
  queueLatency(queue: string, cluster: ClusterName, seconds: number): void;
  /** A rate-limited retry was scheduled. */
  queueRetry(queue: string, cluster: ClusterName): void;
  /** Informer health: 1 synced and watching, 0 otherwise; failures since the last success. */
  informerState(cluster: ClusterName, kind: string, watching: boolean, failures: number): void;
  /** Engaged clusters, per controller or provider. */
  engagedClusters(owner: string, count: number): void;
  /**
   * Drops every series labelled with this cluster (after it is disengaged) and ignores late writes for it (a
   * reconcile that was in flight, a queue draining) until `clusterEngaged` says it is back.
   */
  forgetCluster(cluster: ClusterName): void;
  /** The cluster is engaged (again): record its series. Optional; the manager calls it before engaging. */
  clusterEngaged?(cluster: ClusterName): void;
  /** An event for this cluster was dropped instead of written. Optional. */
  eventDropped?(cluster: ClusterName, reason: EventDropReason): void;
  /** Whether an engaged cluster's API server answered its last health check. Optional. */
  clusterReachable?(cluster: ClusterName, reachable: boolean): void;
  /** A cluster's cache passed one of its limits (objects or bytes) and stopped; the cluster is failed and retried. */
  cacheLimitExceeded?(cluster: ClusterName, limit: 'objects' | 'bytes'): void;
}

/** Records nothing. */
export const noopMetrics: MetricsRecorder = {
  reconcileDone() {},
  activeWorkers() {},
  queueAdd() {},
  queueDepth() {},
  queueLatency() {},
  queueRetry() {},
  informerState() {},
  engagedClusters() {},
  forgetCluster() {},
  clusterEngaged() {},
  eventDropped() {},
  clusterReachable() {},
  cacheLimitExceeded() {},
};
