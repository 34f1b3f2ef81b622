/**
 * Prometheus series of the webhook server, per webhook and per fleet member: reviews answered (by result), latency,
 * denials, handler failures, and requests turned away before a member was known. They go into the manager's
 * registry when it has one (served on its /metrics), so one scrape shows reconciles and admissions side by side.
 * A member's series are dropped when it is disengaged, so cardinality follows the fleet.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The outcome of one review.
 */
export type ReviewResult = 'allowed' | 'denied' | 'error';
/**
 * How a handler failed: it threw, or it did not answer in time.
 */
export type HandlerFailure = 'error' | 'timeout';
/** Why a request was answered before any handler ran. */
export type RejectReason = 'bad_request' | 'too_large' | 'unknown_cluster' | 'cluster_conflict' | 'not_found' | 'shutting_down';

type Labels = Record<string, string>;
interface Removable {
  remove(labels: Labels): void;
}

/** prom-client's Registry, or one from another copy of prom-client (npm may install two). */
export interface RegistryLike {
  /** Registers a metric. */
  registerMetric(metric: never): void;
  /** The metric registered under `name`, if any. */
  getSingleMetric(name: string): unknown;
}

/** The manager's registry when its metrics recorder exposes one (core's PrometheusMetrics does). */
export function registryOf(metrics: unknown): RegistryLike | undefined {
  const r = (metrics as { registry?: unknown } | undefined)?.registry as Partial<RegistryLike> | undefined;
  return r && typeof r.registerMetric === 'function' && typeof r.getSingleMetric === 'function' ? (r as RegistryLike) : undefined;
}

/**
 * The webhook server's Prometheus series (`mcr_webhook_*`), recorded into the manager's registry when it has one.
 */
export class WebhookMetrics {
  private readonly requests: Counter<'webhook' | 'cluster' | 'result'>;
  private readonly latency: Histogram<'webhook' | 'cluster'>;
  private readonly denials: Counter<'webhook' | 'cluster'>;
  private readonly failures: Counter<'webhook' | 'cluster' | 'kind'>;
  private readonly rejected: Counter<'webhook' | 'reason'>;
  private readonly inFlight: Gauge<'webhook'>;
  /** Label sets written per member, because prom-client removes series only by exact labels. */
  private readonly byCluster = new Map<string, Map<Removable, Map<string, Labels>>>();

  constructor(registry: RegistryLike = new Registry(), prefix = 'mcr_') {
    const reuse = <M>(name: string, make: () => M): M => (registry.getSingleMetric(name) as M | undefined) ?? make();
    const registers = [registry as unknown as Registry];
    this.requests = reuse(
      `${prefix}webhook_requests_total`,
      () =>
        new Counter({
          name: `${prefix}webhook_requests_total`,
          help: 'Admission reviews answered by a handler, per webhook, cluster and result (allowed, denied, error).',
          labelNames: ['webhook', 'cluster', 'result'],
          registers,
        }),
    );
    this.latency = reuse(
      `${prefix}webhook_latency_seconds`,
      () =>
        new Histogram({
          name: `${prefix}webhook_latency_seconds`,
          help: 'Time to answer an admission review, per webhook and cluster.',
          labelNames: ['webhook', 'cluster'],
          buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers,
        }),
    );
    this.denials = reuse(
      `${prefix}webhook_denials_total`,
      () =>
        new Counter({
          name: `${prefix}webhook_denials_total`,
          help: 'Admission reviews denied, per webhook and cluster.',
          labelNames: ['webhook', 'cluster'],
          registers,
        }),
    );
    this.failures = reuse(
      `${prefix}webhook_errors_total`,
      () =>
        new Counter({
          name: `${prefix}webhook_errors_total`,
          help: 'Handlers that threw (kind=error) or ran out of time (kind=timeout), per webhook and cluster.',
          labelNames: ['webhook', 'cluster', 'kind'],
          registers,
        }),
    );
    this.rejected = reuse(
      `${prefix}webhook_rejected_total`,
      () =>
        new Counter({
          name: `${prefix}webhook_rejected_total`,
          help: 'Requests answered before a handler ran (bad body, too large, unknown cluster, …), per webhook and reason.',
          labelNames: ['webhook', 'reason'],
          registers,
        }),
    );
    this.inFlight = reuse(
      `${prefix}webhook_requests_in_flight`,
      () =>
        new Gauge({
          name: `${prefix}webhook_requests_in_flight`,
          help: 'Admission reviews being handled now, per webhook.',
          labelNames: ['webhook'],
          registers,
        }),
    );
  }

  /** A review began: one more in flight. */
  reviewStarted(webhook: string): void {
    this.inFlight.inc({ webhook });
  }

  /** A review ended: one fewer in flight. */
  reviewFinished(webhook: string): void {
    this.inFlight.dec({ webhook });
  }

  /** Counts a finished review by result, and observes its latency. */
  reviewDone(webhook: string, cluster: string, result: ReviewResult, seconds: number): void {
    this.count(cluster, this.requests, { webhook, cluster, result });
    this.note(cluster, this.latency, { webhook, cluster });
    this.latency.observe({ webhook, cluster }, seconds);
    if (result === 'denied') this.count(cluster, this.denials, { webhook, cluster });
  }

  /** Counts a handler that threw or timed out. */
  handlerFailed(webhook: string, cluster: string, kind: HandlerFailure): void {
    this.count(cluster, this.failures, { webhook, cluster, kind });
  }

  /** Counts a request refused before any handler ran (bad body, too large, unknown cluster). */
  rejectedRequest(webhook: string, reason: RejectReason): void {
    this.rejected.inc({ webhook, reason });
  }

  /** Drops every series of a member that left the fleet. */
  forgetCluster(cluster: string): void {
    const metrics = this.byCluster.get(cluster);
    if (!metrics) return;
    this.byCluster.delete(cluster);
    for (const [metric, series] of metrics) for (const labels of series.values()) metric.remove(labels);
  }

  private count(cluster: string, metric: Counter<string>, labels: Labels): void {
    this.note(cluster, metric, labels);
    metric.inc(labels);
  }

  private note(cluster: string, metric: Removable, labels: Labels): void {
    let metrics = this.byCluster.get(cluster);
    if (!metrics) this.byCluster.set(cluster, (metrics = new Map<Removable, Map<string, Labels>>()));
    let series = metrics.get(metric);
    if (!series) metrics.set(metric, (series = new Map<string, Labels>()));
    series.set(JSON.stringify(labels), labels);
  }
}
