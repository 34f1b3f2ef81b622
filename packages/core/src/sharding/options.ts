/** Options of sharding, their defaults and validation. */
import { isDns1123Label } from '@multicluster-runtime/apimachinery';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { LeaderElectionConfigError } from '../leaderelection/errors.js';
import { LeaseElector } from '../leaderelection/lease-elector.js';
import { ShardingConfigError } from './errors.js';
import { validateWeight } from './rendezvous.js';

/**
 * Splits the provider's clusters across the replicas that share `groupName`: each cluster is engaged on exactly one
 * replica, chosen by weighted rendezvous hashing over the live peers, and only while that replica holds the
 * cluster's fence Lease. All Leases live in `namespace` of the local cluster.
 */
export interface ShardingOptions {
  /** Replicas with the same group share the fleet. A DNS label (lowercase alphanumerics and '-'), ≤ 30 characters. */
  groupName: string;
  /** Namespace of the peer and fence Leases. Default: the pod's namespace when running in a cluster, else `default`. */
  namespace?: string;
  /** This replica's identity. Default `<hostname>_<uuid>` (unique per process). */
  id?: string;
  /** Relative share of the fleet this replica takes. Default 1. */
  weight?: number;
  timings?: ShardingTimings;
}

/** The durations sharding runs with, after defaults: peer and fence Lease timings and the recompute interval. */
export interface ShardingTimings {
  /** A peer that has not renewed its Lease for this long is dropped. Default 15 s (≥ 1 s: Leases count seconds). */
  peerLeaseDurationMs?: number;
  /**
   * How often a replica renews its peer Lease and lists the group's Leases (peers, and the fence renewals a crash
   * takeover counts from). Default 2 s.
   */
  peerRenewIntervalMs?: number;
  /** How long a fence holder's claim lasts without renewal. Default 15 s. */
  fenceLeaseDurationMs?: number;
  /** A holder that cannot renew its fence for this long disengages the cluster. Default 10 s (< fenceLeaseDurationMs). */
  fenceRenewDeadlineMs?: number;
  /** How often fences are renewed, and how soon a wanted fence held by another replica is tried again. Default 2 s. */
  fenceRetryPeriodMs?: number;
  /** How often every cluster's ownership is recomputed even without a change of peers or clusters. Default 10 s. */
  recomputeIntervalMs?: number;
}

export type ResolvedSharding = Required<Omit<ShardingOptions, 'timings' | 'namespace'>> & {
  namespace: string;
  timings: Required<ShardingTimings>;
};

/** Fills defaults and checks everything; throws ShardingConfigError. `namespace` is resolved by the caller. */
export function resolveSharding(options: ShardingOptions, namespace: string): ResolvedSharding {
  const group = options.groupName;
  if (typeof group !== 'string' || !isDns1123Label(group) || group.length > 30) {
    throw new ShardingConfigError(`sharding.groupName must be a DNS label of at most 30 characters, got ${JSON.stringify(group)}`);
  }
  const id = options.id ?? `${hostname()}_${randomUUID()}`;
  if (!id) throw new ShardingConfigError('sharding.id must not be empty');
  const t = options.timings ?? {};
  const timings: Required<ShardingTimings> = {
    peerLeaseDurationMs: t.peerLeaseDurationMs ?? 15_000,
    peerRenewIntervalMs: t.peerRenewIntervalMs ?? 2_000,
    fenceLeaseDurationMs: t.fenceLeaseDurationMs ?? 15_000,
    fenceRenewDeadlineMs: t.fenceRenewDeadlineMs ?? 10_000,
    fenceRetryPeriodMs: t.fenceRetryPeriodMs ?? 2_000,
    recomputeIntervalMs: t.recomputeIntervalMs ?? 10_000,
  };
  for (const [key, value] of Object.entries(timings)) {
    if (!(Number.isFinite(value) && value > 0))
      throw new ShardingConfigError(`sharding.timings.${key} must be a positive number, got ${String(value)}`);
  }
  if (timings.peerLeaseDurationMs < 1000)
    throw new ShardingConfigError('sharding.timings.peerLeaseDurationMs must be at least 1000 (Leases count in seconds)');
  if (!(timings.peerRenewIntervalMs < timings.peerLeaseDurationMs)) {
    throw new ShardingConfigError(
      'sharding.timings.peerRenewIntervalMs must be shorter than peerLeaseDurationMs, or live peers expire between renewals',
    );
  }
  try {
    // The fence is a LeaseElector per cluster: let it check its own timing rules now rather than at the first cluster.
    new LeaseElector({} as never, {
      namespace: 'check',
      name: 'check',
      identity: id,
      leaseDurationMs: timings.fenceLeaseDurationMs,
      renewDeadlineMs: timings.fenceRenewDeadlineMs,
      retryPeriodMs: timings.fenceRetryPeriodMs,
    });
  } catch (err) {
    if (err instanceof LeaderElectionConfigError) throw new ShardingConfigError(`sharding.timings (fence): ${err.message}`, { cause: err });
    throw err;
  }
  return { groupName: group, namespace, id, weight: validateWeight(options.weight ?? 1, 'sharding.weight'), timings };
}
