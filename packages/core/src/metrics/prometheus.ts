/**
 * Prometheus implementation of {@link MetricsRecorder} over prom-client. Each instance owns its own Registry (never
 * the process-global one) so several managers in one process, or in one test file, do not collide. Every series that
 * concerns a cluster carries a `cluster` label; `forgetCluster` drops them all so cardinality stays bounded while
 * clusters come and go.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ClusterName } from '../fleet/cluster-name.js';
import { HistogramTally, Tally } from './tally.js';
import type { EventDropReason, MetricsRecorder, ReconcileOutcome } from './types.js';

/** Options of PrometheusMetrics: the registry to register in, whether to add Node's process metrics, and a name prefix. */
export interface PrometheusMetricsOptions {
  /** Registry to register into. Default: a new one owned by this recorder. */
  registry?: Registry;
  /** Also collect Node.js process metrics (CPU, heap, event-loop lag) into the registry. Default false. */
  processMetrics?: boolean;
  /** Prefix for every metric name. Default `mcr_`. */
  prefix?: string;
}

/** How many forgotten cluster names are remembered to drop their late writes (bounded, oldest forgotten first). */
const maxRetired = 10_000;

/** Outcomes that count as reconcile errors (`mcr_reconcile_errors_total`). */
const errorOutcomes: ReadonlySet<ReconcileOutcome> = new Set(['error', 'terminal_error']);

type Labels = Record<string, string>;

/** A metric whose series can be removed by exact label set. */
interface Removable {
  remove(labels: Labels): void;
}

/**
 * Remembers which label sets were written per cluster, because prom-client can only remove a series by its exact
 * label set and a disengaged cluster's series must all go.
 */
class SeriesByCluster {
  private readonly byCluster = new Map<ClusterName, Map<Removable, Map<string, Labels>>>();

  /**
   * Records that `metric` has the series `labels` for `cluster`. `key` tells label sets of one metric and cluster
   * apart (the values of its other labels, joined): cheaper than serializing the labels on every observation.
   */
  note(cluster: ClusterName, metric: Removable, key: string, labels: Labels): void {
    let metrics = this.byCluster.get(cluster);
    if (!metrics) this.byCluster.set(cluster, (metrics = new Map<Removable, Map<string, Labels>>()));
    let series = metrics.get(metric);
    if (!series) metrics.set(metric, (series = new Map<string, Labels>()));
    if (!series.has(key)) series.set(key, labels);
  }

  forget(cluster: ClusterName): void {
    const metrics = this.byCluster.get(cluster);
    if (!metrics) return;
    this.byCluster.delete(cluster);
    for (const [metric, series] of metrics) for (const labels of series.values()) metric.remove(labels);
  }
}

/**
 * The default MetricsRecorder: prom-client series (`mcr_*`) in its own `registry`, which the manager serves on
 * `/metrics` and the webhook server records into.
 */
export class PrometheusMetrics implements MetricsRecorder {
  /** The registry to scrape (`await registry.metrics()`). */
  readonly registry: Registry;
  private readonly series = new SeriesByCluster();
  /** Clusters forgotten and not engaged again: their late writes are dropped so their series stay gone. */
  private readonly retired = new Set<ClusterName>();
  /** reconcileTotal keys per controller and outcome (a handful of each). */
  private readonly outcomeKeys = new Map<string, Map<ReconcileOutcome, string>>();

  // Tallies are written on every queued item and reconcile, and reach prom-client only when scraped.
  private readonly reconcileTotal: Tally;
  private readonly reconcileErrors: Counter<'controller' | 'cluster'>;
  private readonly reconcileTime: HistogramTally;
  private readonly workers: Tally;
  private readonly queueAdds: Tally;
  private readonly depth: Tally;
  private readonly queueDuration: HistogramTally;
  private readonly retries: Tally;
  private readonly informerWatching: Gauge<'cluster' | 'kind'>;
  private readonly informerFailures: Gauge<'cluster' | 'kind'>;
  private readonly engaged: Gauge<'owner'>;
  private readonly eventsDropped: Counter<'cluster' | 'reason'>;
  private readonly reachable: Gauge<'cluster'>;
  private readonly cacheLimits: Counter<'cluster' | 'limit'>;

  constructor(options: PrometheusMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const p = options.prefix ?? 'mcr_';
    const registers = [this.registry];
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });

    this.reconcileTotal = Tally.counter({
      name: `${p}reconcile_total`,
      help: 'Reconciles finished, per controller, cluster and result.',
      labelNames: ['controller', 'cluster', 'result'],
      registers,
      labels: (cluster, key) => {
        const [controller = '', result = ''] = key.split('\u0000');
        return { controller, cluster, result };
      },
    });
    this.reconcileErrors = new Counter({
      name: `${p}reconcile_errors_total`,
      help: 'Reconciles that failed (retried or terminal), per controller and cluster.',
      labelNames: ['controller', 'cluster'],
      registers,
    });
    this.reconcileTime = new HistogramTally({
      name: `${p}reconcile_time_seconds`,
      help: 'Time per reconcile, per controller and cluster.',
      labelNames: ['controller', 'cluster'],
      registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      labels: (cluster, controller) => ({ controller, cluster }),
    });
    this.workers = Tally.gauge({
      name: `${p}active_workers`,
      help: 'Workers busy reconciling, per controller.',
      labelNames: ['controller'],
      registers,
      labels: (controller) => ({ controller }),
    });
    const queueLabels = (cluster: string, name: string) => ({ name, cluster });
    this.queueAdds = Tally.counter({
      name: `${p}workqueue_adds_total`,
      help: 'Items added to a work queue, per queue and cluster.',
      labelNames: ['name', 'cluster'],
      registers,
      labels: queueLabels,
    });
    this.depth = Tally.gauge({
      name: `${p}workqueue_depth`,
      help: 'Items waiting in a work queue, per queue and cluster.',
      labelNames: ['name', 'cluster'],
      registers,
      labels: queueLabels,
    });
    this.queueDuration = new HistogramTally({
      name: `${p}workqueue_queue_duration_seconds`,
      help: 'Time an item waited in a work queue before a worker took it.',
      labelNames: ['name', 'cluster'],
      registers,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
      labels: queueLabels,
    });
    this.retries = Tally.counter({
      name: `${p}workqueue_retries_total`,
      help: 'Rate-limited retries scheduled, per queue and cluster.',
      labelNames: ['name', 'cluster'],
      registers,
      labels: queueLabels,
    });
    this.informerWatching = new Gauge({
      name: `${p}informer_watching`,
      help: '1 if the informer has synced and is watching, 0 otherwise.',
      labelNames: ['cluster', 'kind'],
      registers,
    });
    this.informerFailures = new Gauge({
      name: `${p}informer_failures`,
      help: 'Consecutive list/watch failures of an informer since its last success.',
      labelNames: ['cluster', 'kind'],
      registers,
    });
    this.engaged = new Gauge({
      name: `${p}engaged_clusters`,
      help: 'Clusters engaged, per controller or provider.',
      labelNames: ['owner'],
      registers,
    });
    this.reachable = new Gauge({
      name: `${p}cluster_reachable`,
      help: "1 if an engaged cluster's API server answered its last health check, 0 if not.",
      labelNames: ['cluster'],
      registers,
    });
    this.eventsDropped = new Counter({
      name: `${p}events_dropped_total`,
      help: 'Events not written, per cluster and reason (queue_full, spam, write_failed, stopped).',
      labelNames: ['cluster', 'reason'],
      registers,
    });
    this.cacheLimits = new Counter({
      name: `${p}cache_limit_exceeded_total`,
      help: "Times a cluster's cache passed a limit (objects or bytes) and the cluster was failed, per cluster and limit.",
      labelNames: ['cluster', 'limit'],
      registers,
    });
  }

  /** Kept when the cluster is forgotten: the breach disengages it, and the count is what an operator looks for. */
  cacheLimitExceeded(cluster: ClusterName, limit: 'objects' | 'bytes'): void {
    this.cacheLimits.inc({ cluster, limit });
  }

  eventDropped(cluster: ClusterName, reason: EventDropReason): void {
    if (this.retired.has(cluster)) return;
    const labels = { cluster, reason };
    this.eventsDropped.inc(labels);
    this.series.note(cluster, this.eventsDropped, reason, labels);
  }

  reconcileDone(controller: string, cluster: ClusterName, outcome: ReconcileOutcome, seconds: number): void {
    if (this.retired.has(cluster)) return;
    this.reconcileTotal.add(cluster, this.outcomeKey(controller, outcome), 1);
    if (errorOutcomes.has(outcome)) {
      const base = { controller, cluster };
      this.reconcileErrors.inc(base);
      this.series.note(cluster, this.reconcileErrors, controller, base);
    }
    if (Number.isFinite(seconds) && seconds >= 0) this.reconcileTime.observe(cluster, controller, seconds);
  }

  /** The reconcileTotal key of a controller and outcome, made once: a reconcile then costs no string. */
  private outcomeKey(controller: string, outcome: ReconcileOutcome): string {
    let keys = this.outcomeKeys.get(controller);
    if (!keys) this.outcomeKeys.set(controller, (keys = new Map<ReconcileOutcome, string>()));
    let key = keys.get(outcome);
    if (key === undefined) keys.set(outcome, (key = `${controller}\u0000${outcome}`));
    return key;
  }

  activeWorkers(controller: string, count: number): void {
    this.workers.set(controller, '', count);
  }

  queueAdd(queue: string, cluster: ClusterName): void {
    if (this.retired.has(cluster)) return;
    this.queueAdds.add(cluster, queue, 1);
  }

  queueDepth(queue: string, cluster: ClusterName, depth: number): void {
    if (this.retired.has(cluster)) return;
    this.depth.set(cluster, queue, depth);
  }

  queueLatency(queue: string, cluster: ClusterName, seconds: number): void {
    if (this.retired.has(cluster)) return;
    if (!Number.isFinite(seconds) || seconds < 0) return;
    this.queueDuration.observe(cluster, queue, seconds);
  }

  queueRetry(queue: string, cluster: ClusterName): void {
    if (this.retired.has(cluster)) return;
    this.retries.add(cluster, queue, 1);
  }

  informerState(cluster: ClusterName, kind: string, watching: boolean, failures: number): void {
    if (this.retired.has(cluster)) return;
    const labels = { cluster, kind };
    this.informerWatching.set(labels, watching ? 1 : 0);
    this.informerFailures.set(labels, failures);
    this.series.note(cluster, this.informerWatching, kind, labels);
    this.series.note(cluster, this.informerFailures, kind, labels);
  }

  clusterReachable(cluster: ClusterName, reachable: boolean): void {
    if (this.retired.has(cluster)) return;
    const labels = { cluster };
    this.reachable.set(labels, reachable ? 1 : 0);
    this.series.note(cluster, this.reachable, '', labels);
  }

  engagedClusters(owner: string, count: number): void {
    this.engaged.set({ owner }, count);
  }

  forgetCluster(cluster: ClusterName): void {
    this.series.forget(cluster);
    for (const tally of [this.reconcileTotal, this.queueAdds, this.depth, this.retries, this.reconcileTime, this.queueDuration])
      tally.forget(cluster);
    this.retired.delete(cluster);
    this.retired.add(cluster);
    if (this.retired.size > maxRetired) {
      const oldest = this.retired.values().next().value;
      if (oldest !== undefined) this.retired.delete(oldest);
    }
  }

  clusterEngaged(cluster: ClusterName): void {
    this.retired.delete(cluster);
  }

  /** The exposition text, as served on `/metrics`. */
  async scrape(): Promise<string> {
    return this.registry.metrics();
  }
}
