/**
 * The options every kubeconfig-based provider shares for the clusters it connects (cluster options, probe and sync
 * timeouts, retry backoff, status listener, metrics, logger), and the rules that check them, with the kubeconfig
 * policy, when the provider is made.
 */
import type { ClusterOptions } from '../../cluster/cluster.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../../cluster/types.js';
import type { ClusterName } from '../../fleet/cluster-name.js';
import { kubeconfigPolicyShape } from '../../kubeconfig/untrusted.js';
import type { Logger } from '../../log/logger.js';
import type { MetricsRecorder } from '../../metrics/types.js';
import { either, func, nested, positiveMs, rule, withMethods, type Rule } from '../../options/rules.js';
import type { StatusListener } from './cluster-status.js';
import type { HealthCheckOptions } from './health.js';

/** Builds a cluster for a kubeconfig. The default is core's `newCluster`. */
export type ClusterFactory = (config: KubeConfig, options: { name: ClusterName; logger: Logger; metrics?: MetricsRecorder }) => Cluster;

/**
 * The backoff between connection attempts for a cluster that failed.
 */
export interface RetryOptions {
  /** First retry delay. Default 1 s. */
  initialMs?: number;
  /** Largest retry delay. Default 5 min. */
  maxMs?: number;
}

/** Options shared by the kubeconfig providers for the clusters they create. */
export interface ClusterConnectionOptions {
  /** Passed to `newCluster` for every cluster (transport tuning, metrics). `name` and `logger` are set per cluster. */
  clusterOptions?: Omit<ClusterOptions, 'name'>;
  /** Replaces `newCluster`, e.g. to wrap clusters. */
  newCluster?: ClusterFactory;
  /** How long a new cluster's API server has to answer discovery. Default 10 s. */
  probeTimeoutMs?: number;
  /** How long a new cluster's cache has to sync before it is given up (and retried). Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** Backoff between attempts for unreachable or failing clusters. */
  retry?: RetryOptions;
  /** Called on every status change. Exceptions are logged and ignored. */
  onStatus?: StatusListener;
  /** Receives the number of engaged clusters (`engagedClusters(owner, n)`). Default: the manager's metrics. */
  metrics?: MetricsRecorder;
  /** Where the provider logs. Default: the manager's logger (the start context's). */
  logger?: Logger;
  /** How often engaged clusters are checked for reachability (status `health`, one log line per change); false: never. */
  healthCheck?: HealthCheckOptions | false;
}

const anObject = (what: string) => rule(what, (v) => typeof v === 'object' && v !== null);

/**
 * The connection options every kubeconfig-based provider shares, and its kubeconfig `policy`, checked when the
 * provider is made (each provider checks its own other keys).
 */
export const connectionRules: Record<keyof ClusterConnectionOptions | 'policy', Rule> = {
  clusterOptions: anObject('cluster options such as { transport: { … } }'),
  newCluster: func,
  probeTimeoutMs: positiveMs,
  waitCacheTimeoutMs: positiveMs,
  retry: nested<RetryOptions>({ initialMs: positiveMs, maxMs: positiveMs }),
  onStatus: func,
  metrics: anObject('a MetricsRecorder'),
  logger: withMethods('a Logger', ['debug', 'info', 'warn', 'error', 'with']),
  policy: nested(kubeconfigPolicyShape),
  healthCheck: either(
    rule('false', (v) => v === false),
    nested<HealthCheckOptions>({ intervalMs: positiveMs, timeoutMs: positiveMs }),
  ),
};
