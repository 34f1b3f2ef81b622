/**
 * `@multicluster-runtime/core/metrics`: metrics: the recorder contract the runtime reports through, a Prometheus
 * implementation and a no-op. The package root exports the part of this most programs need.
 */
export type { EventDropReason, MetricsRecorder, ReconcileOutcome } from './types.js';
export { noopMetrics } from './types.js';
export type { PrometheusMetricsOptions } from './prometheus.js';
export { PrometheusMetrics } from './prometheus.js';
