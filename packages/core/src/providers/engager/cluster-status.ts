/**
 * What a provider knows about each cluster it was told about: engaged, or why not. Reasons name the
 * problem (a field, a status code, a connection failure) and never a credential.
 */

export type ClusterState =
  /** Being connected to (probe, cache sync, engage). */
  | 'pending'
  /** Engaged with the manager. */
  | 'engaged'
  /**
   * The source exists but says the cluster is not ready to be engaged (a Cluster API Cluster whose control plane is
   * not initialized, a Milo project that is not Ready). Waits for a change.
   */
  | 'notReady'
  /** The kubeconfig is unusable: bad YAML, missing context, cluster, user or server. Waits for a change. */
  | 'invalid'
  /** The kubeconfig asks for something the policy refuses (exec, auth-provider, local files, no TLS). Waits for a change. */
  | 'rejected'
  /** The API server could not be reached (refused, timeout, TLS failure). Retried with backoff. */
  | 'unreachable'
  /** The API server refused the credentials (401/403). Retried with backoff, as they may be provisioned late. */
  | 'unauthorized'
  /** Connecting worked but starting, indexing or engaging the cluster failed. Retried with backoff if it may help. */
  | 'failed';

/**
 * What a provider knows of one cluster: its state, why, since when, how many attempts failed, and its health.
 */
export interface ClusterStatus {
  readonly state: ClusterState;
  /** Why the cluster is not engaged, or what was ignored while it stays engaged. */
  readonly reason?: string;
  /** When the state last changed. */
  readonly since: Date;
  /** Consecutive failed connection attempts (0 once engaged). */
  readonly failures: number;
  /** For an engaged cluster: whether its API server still answers (see `healthCheck`). */
  readonly health?: ClusterHealth;
}

/** Whether an engaged cluster's API server still answers (see `healthCheck`). */
export interface ClusterHealth {
  /** The API server answered the last check. */
  readonly reachable: boolean;
  /** When `reachable` last changed (the engagement, for a cluster that never failed a check). */
  readonly since: Date;
  /** Why the last check failed (never a credential). */
  readonly lastError?: string;
}

/** Called on every status change; `undefined` when the provider forgot the cluster (its source is gone). */
export type StatusListener = (name: string, status: ClusterStatus | undefined) => void;

/** One line per status change: what happened to the cluster, in words an operator can act on (`reason` says why). */
export const statusMessages: Record<ClusterState, string> = {
  pending: 'connecting to cluster',
  engaged: 'cluster engaged',
  notReady: 'cluster not engaged: its source says it is not ready',
  invalid: 'cluster not engaged: its kubeconfig is unusable',
  rejected: 'cluster not engaged: its kubeconfig was refused by the policy',
  unreachable: 'cluster unreachable; retrying with backoff',
  unauthorized: 'cluster refused the credentials; retrying with backoff',
  failed: 'cluster failed',
};
