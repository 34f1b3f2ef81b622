/**
 * The multi-cluster contracts: how a provider tells the runtime which clusters exist (engage/disengage) and how the
 * runtime finds a cluster by name. Disengagement has no method of its own: it is the abort of the signal passed to
 * {@link Aware.engage}; {@link Aware.waitForDisengaged} lets a caller wait until the work it stopped has ended.
 */
import type { Cluster } from '../cluster/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { IndexerFunc } from '../cache/types.js';
import type { Logger } from '../log/logger.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { ObjectKind } from '../object/types.js';

/** Something that runs per cluster: controllers, registries, the manager itself. */
export interface Aware {
  /**
   * Starts work for `cluster` under `name`. `signal` is tied to the cluster's engagement and aborts when the
   * cluster goes away (disengage). Engaging the same instance again under the same name is a no-op; engaging a
   * different instance under an engaged name replaces the old engagement. Must not block on the cluster's lifetime:
   * it resolves once the work has started (or rejects if it cannot start).
   */
  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void>;
  /**
   * Optional: resolves true once the work for `name` has fully stopped — no engagement of `name` is live, its
   * per-cluster sources were stopped, its queued work dropped, and nothing (no reconcile) still runs for it — or
   * false if `signal` aborts first. A disengaged signal only asks work to stop; this says it did, so a caller can
   * hand the cluster to someone else without overlap (sharding awaits it before releasing a cluster's fence). If
   * `name` is engaged again meanwhile, it waits for that engagement to end too. Awares without it are taken to stop
   * as soon as their signal aborts.
   */
  waitForDisengaged?(signal: AbortSignal, name: ClusterName): Promise<boolean>;
}

/** Knows the clusters of a fleet and how to reach them. */
export interface Provider {
  /** The engaged cluster with this name; throws `ClusterNotFoundError` if there is none. */
  get(name: ClusterName, signal?: AbortSignal): Promise<Cluster>;
  /**
   * Registers a field index on every cluster the provider has engaged and on every cluster it engages later,
   * exactly once per cluster.
   */
  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void>;
}

/**
 * Everything a provider gets from whoever starts it (the manager, or a MultiProvider passing its own on to its
 * members). A provider uses nothing else of its starter: it engages through `aware`, finds the host cluster in
 * `localCluster`, and logs and records through `logger` and `metrics` unless its own options name others.
 */
export interface ProviderContext {
  /**
   * Where discovered clusters are engaged. The abort of the signal passed to `engage` is the disengage. Under a
   * MultiProvider this Aware prefixes the member's cluster names, so a member never sees the composed names.
   */
  readonly aware: Aware;
  /**
   * The host (local) cluster, when the provider runs under a manager: already started, its cache synced, and owned by
   * the manager (a provider reads through it and never stops it). Absent when the starter has none, e.g. a test that
   * starts a provider on its own; a provider that needs one then fails its start with a clear configuration error.
   */
  readonly localCluster?: Cluster;
  /**
   * The starter's logger (the manager's). A provider logs through it unless it was given a `logger` option, so its
   * refusals and unreachable members show up with no extra wiring. Never log credentials through it.
   */
  readonly logger: Logger;
  /** The starter's metrics; a provider records through it unless it was given a `metrics` option. */
  readonly metrics: MetricsRecorder;
}

/** A provider with a discovery loop. The manager starts it (last, after its other runnables); never call it yourself. */
export interface ProviderRunnable extends Provider {
  /**
   * Runs discovery until `signal` aborts, engaging clusters through `context.aware`; resolves once every cluster it
   * engaged is disengaged. Rejects only when it cannot run at all (misconfigured, started twice): one bad or
   * unreachable cluster is logged and reported, never a reason to stop.
   */
  start(signal: AbortSignal, context: ProviderContext): Promise<void>;
  /**
   * True to run discovery only on the elected replica, as upstream does. By default a provider runs on every
   * replica, so standbys answer getCluster and take over with their clusters already engaged; only the leader's
   * controllers reconcile. Ignored with sharding, which needs the provider everywhere.
   */
  readonly needLeaderElection?: boolean;
}

/** True if the provider has a discovery loop the manager must start. */
export function isProviderRunnable(provider: Provider | undefined): provider is ProviderRunnable {
  return typeof (provider as Partial<ProviderRunnable> | undefined)?.start === 'function';
}
