/** Options of the multi-cluster manager and their defaults. */
import type { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import type { ClientOptions } from '../client/delegating-client.js';
import type { Cluster } from '../cluster/types.js';
import type { Logger } from '../log/logger.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { MetricsSource } from '../healthz/probe-server.js';
import { parseBindAddress } from '../healthz/bind-address.js';
import type { ObjectKind } from '../object/types.js';
import type { FleetReadiness } from '../providers/engager/readiness.js';
import { checkOptions } from '../options/check.js';
import {
  anyString,
  arrayOf,
  boolean,
  func,
  nested,
  nonEmptyString,
  nonNegativeMs,
  oneOf,
  positiveMs,
  positiveNumber,
  rule,
  withMethods,
  type Shape,
} from '../options/rules.js';
import type { ShardingOptions, ShardingTimings } from '../sharding/options.js';
import { ManagerConfigError } from './errors.js';

/**
 * Leader election on a coordination.k8s.io/v1 Lease in the local cluster. Runnables that need leader election (the
 * default, controllers included) and the provider run only on the leader; runnables with `needLeaderElection: false`
 * run on every replica. A leader that loses its Lease stops the manager with LeaderElectionLostError (restart the
 * process, as controller-runtime does); one that shuts down cleanly releases it so a standby takes over at once.
 */
export interface LeaderElectionOptions {
  enabled?: boolean;
  /** Namespace of the Lease. Default: the pod's namespace when running in a cluster, else `default`. */
  namespace?: string;
  /** Name of the Lease; replicas of one controller share it. */
  name: string;
  /** This replica's identity. Default `<hostname>_<uuid>`. */
  id?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/**
 * Options of {@link newManager}: logging and metrics, leader election, probe and metrics addresses, shutdown,
 * sharding, fleet readiness and the local cluster.
 */
export interface ManagerOptions {
  logger?: Logger;
  /** Where runtime metrics go. Default: a PrometheusMetrics with its own registry, served on `/metrics`. */
  metrics?: MetricsRecorder;
  /** What `/metrics` serves when `metrics` is not a PrometheusMetrics (e.g. your own prom-client Registry). */
  metricsRegistry?: MetricsSource;
  leaderElection?: LeaderElectionOptions;
  /** `host:port` for `/metrics`; port 0 picks a free port; "0" or absent turns it off. */
  metricsBindAddress?: string;
  /** `host:port` for `/healthz` and `/readyz`; port 0 picks a free port; "0" or absent turns it off. */
  healthProbeBindAddress?: string;
  /** How long shutdown may take before running runnables are abandoned. Default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  /**
   * Makes `/readyz` (check `fleet`) wait for the provider's clusters: `attempted` until each cluster it knows has been
   * tried once, `engaged` until each is engaged (those their source calls not ready excepted). Needs a provider that
   * reports statuses (every provider built on EngagerProvider). Default: `/readyz` does not look at the fleet.
   */
  fleetReadiness?: FleetReadiness;
  /** Use this cluster as the local cluster "" instead of building one from the config. The manager starts it. */
  localCluster?: Cluster;
  /**
   * Splits the provider's clusters across the replicas sharing `sharding.groupName` (see sharding/README.md). With
   * sharding on, the provider and every Aware runnable (controllers) run on every replica even when leader election
   * is on: per-cluster fence Leases, not leadership, keep two replicas from reconciling one cluster. Runnables that
   * are not Aware still honour `needLeaderElection`.
   */
  sharding?: ShardingOptions;
  /** Builds the local cluster from the config when `localCluster` is absent. Default: `newCluster`. */
  newCluster?: (config: KubeConfig, options: { logger: Logger; metrics: MetricsRecorder; client?: ClientOptions }) => Cluster;
  /**
   * How the local cluster's client reads (controller-runtime's `manager.Options.Client`): `{ cache: { disableFor:
   * [kind] } }` reads those kinds from the API server. Provider clusters take the same option from their provider.
   */
  client?: ClientOptions;
}

const serviceAccountNamespace = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The Lease namespace: as configured, else the pod's own namespace (as controller-runtime). */
export function leaseNamespace(le: LeaderElectionOptions): string {
  return namespaceOr(le.namespace);
}

/** `namespace` if set, else the pod's namespace, else `default` (a controller run from a laptop, say). */
export function namespaceOr(namespace: string | undefined): string {
  if (namespace) return namespace;
  try {
    const ns = readFileSync(serviceAccountNamespace, 'utf8').trim();
    if (ns) return ns;
  } catch {
    // not running in a pod
  }
  return 'default';
}

const anObject = (what: string) => rule(what, (v) => typeof v === 'object' && v !== null);

const shardingTimingsShape: Shape<ShardingTimings> = {
  peerLeaseDurationMs: positiveMs,
  peerRenewIntervalMs: positiveMs,
  fenceLeaseDurationMs: positiveMs,
  fenceRenewDeadlineMs: positiveMs,
  fenceRetryPeriodMs: positiveMs,
  recomputeIntervalMs: positiveMs,
};

/** Every option of newManager, so an unknown key (or one put at the wrong level) is refused with where it belongs. */
const managerOptionsShape: Shape<ManagerOptions> = {
  logger: withMethods('a Logger', ['debug', 'info', 'warn', 'error', 'with']),
  metrics: anObject('a MetricsRecorder'),
  metricsRegistry: anObject('a metrics source such as a prom-client Registry'),
  leaderElection: nested<LeaderElectionOptions>({
    enabled: boolean,
    namespace: nonEmptyString,
    name: nonEmptyString,
    id: nonEmptyString,
    leaseDurationMs: positiveMs,
    renewDeadlineMs: positiveMs,
    retryPeriodMs: positiveMs,
  }),
  metricsBindAddress: anyString,
  healthProbeBindAddress: anyString,
  gracefulShutdownTimeoutMs: nonNegativeMs,
  fleetReadiness: oneOf('attempted', 'engaged'),
  localCluster: withMethods('a Cluster', ['start']),
  sharding: nested<ShardingOptions>({
    groupName: nonEmptyString,
    namespace: nonEmptyString,
    id: nonEmptyString,
    weight: positiveNumber,
    timings: nested(shardingTimingsShape),
  }),
  newCluster: func,
  client: nested<ClientOptions>({
    cache: nested<NonNullable<ClientOptions['cache']>>({
      disableFor: arrayOf(
        rule('a kind such as { apiVersion: "v1", kind: "Secret" }', (v) => {
          const k = v as Partial<ObjectKind> | null;
          return (
            typeof k === 'object' &&
            k !== null &&
            typeof k.apiVersion === 'string' &&
            k.apiVersion !== '' &&
            typeof k.kind === 'string' &&
            k.kind !== ''
          );
        }),
      ),
    }),
  }),
};

export function validateOptions(options: ManagerOptions): void {
  checkOptions(options, managerOptionsShape, (message) => new ManagerConfigError(message));
  // Parsed here so a malformed address fails newManager, not a later start.
  parseBindAddress(options.metricsBindAddress);
  parseBindAddress(options.healthProbeBindAddress);
  const t = options.gracefulShutdownTimeoutMs;
  if (t !== undefined && !(Number.isFinite(t) && t >= 0)) {
    throw new ManagerConfigError(`gracefulShutdownTimeoutMs must be a non-negative number, got ${String(t)}`);
  }
  const le = options.leaderElection;
  if (le?.enabled && !le.name) throw new ManagerConfigError('leaderElection.name is required when leader election is enabled');
}
