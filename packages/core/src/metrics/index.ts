/**
 * `@multicluster-runtime/core/metrics`: metrics: the recorder contract the runtime reports through, a Prometheus
 * implementation and a no-op. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { EventDropReason, MetricsRecorder, ReconcileOutcome } from './types.js';
export { noopMetrics } from './types.js';
export type { PrometheusMetricsOptions } from './prometheus.js';
export { PrometheusMetrics } from './prometheus.js';
