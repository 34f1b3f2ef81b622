/**
 * Manager contracts: the multi-cluster manager owns the local (host) cluster, an optional provider, and every
 * runnable (controllers, registries); it engages runnables with each cluster the provider brings.
 */
import type { Cluster } from '../cluster/types.js';
import type { EventRecorder } from '../events/types.js';
import type { FieldIndexer } from '../cache/types.js';
import type { HealthCheck } from '../healthz/checks.js';
import type { Logger } from '../log/logger.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware, Provider } from '../multicluster/types.js';

/** Something the manager runs until its signal aborts. */
export interface Runnable {
  /** Runs until `signal` aborts; a rejection stops the manager. */
  start(signal: AbortSignal): Promise<void>;
  /** Runs only on the elected leader when leader election is on. Default true (as controller-runtime). */
  readonly needLeaderElection?: boolean;
  /**
   * Optional: resolves true once the started runnable can do its work (e.g. its sources synced), false if `signal`
   * aborts first. The manager's `/readyz` waits for it.
   */
  waitForReady?(signal: AbortSignal): Promise<boolean>;
  /** Optional: how logs and errors name the runnable (default: its class name). */
  readonly name?: string;
}

/** A runnable that also runs per cluster (controllers). */
export type AwareRunnable = Runnable & Aware;

/** Anything that carries a cluster name, such as a reconcile context. */
export interface ClusterContext {
  readonly clusterName: ClusterName;
}

export interface Manager extends Aware {
  /** Adds a runnable; Aware runnables are engaged with every cluster engaged so far and every later one. */
  add(runnable: Runnable | AwareRunnable): void;
  /**
   * The cluster with this name ("" is the local cluster); throws ClusterNotFoundError if none, and its subclass
   * ClusterNotOwnedError when sharding assigns the cluster to another replica.
   */
  getCluster(name: ClusterName, signal?: AbortSignal): Promise<Cluster>;
  /** The cluster named by a reconcile context. */
  clusterFromContext(ctx: ClusterContext): Promise<Cluster>;
  /** The local cluster "" (the one the manager's kubeconfig points at). */
  getLocalCluster(): Cluster;
  /** The local cluster's event recorder for `reportingController` (controller-runtime's `mgr.GetEventRecorderFor`). */
  getEventRecorderFor(reportingController: string): EventRecorder;
  /** The provider the manager was made with, if any. */
  getProvider(): Provider | undefined;
  /** Indexes fields on the local cluster and on every provider cluster, present and future. */
  getFieldIndexer(): FieldIndexer;
  readonly logger: Logger;
  readonly metrics: MetricsRecorder;
  /** Resolves when this replica is elected leader (at once without leader election). */
  elected(): Promise<void>;
  /** Adds a liveness check served on `/healthz` and `/healthz/<name>`; it fails by throwing or returning false. */
  addHealthzCheck(name: string, check: HealthCheck): void;
  /** Adds a readiness check served on `/readyz` and `/readyz/<name>`. */
  addReadyzCheck(name: string, check: HealthCheck): void;
  /** Runs everything until `signal` aborts; resolves after a graceful shutdown. */
  start(signal: AbortSignal): Promise<void>;
}
