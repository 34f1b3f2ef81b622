/**
 * A readiness check over a provider's cluster statuses, for `/readyz`: a replica that has not yet connected to the
 * clusters its provider knows should not take traffic (a webhook that cannot answer for them) or count as rolled out.
 * Two strictness levels, because one broken member must not keep a replica unready for ever unless asked:
 * - `attempted`: every known cluster has been tried at least once (none is on its first connection attempt);
 * - `engaged`: every known cluster is engaged, except those whose source says they are not ready.
 */
import type { ClusterName } from '../../fleet/cluster-name.js';
import type { HealthCheck } from '../../healthz/checks.js';
import type { ClusterStatus } from './cluster-status.js';

/**
 * How strictly `/readyz` waits for the provider's clusters (see {@link fleetReadinessCheck}).
 */
export type FleetReadiness = 'attempted' | 'engaged';

/** Anything that reports cluster statuses: every provider built on EngagerProvider. */
export interface StatusSource {
  /** The status of every cluster the provider knows, engaged or not, by name. */
  statuses(): ReadonlyMap<ClusterName, ClusterStatus>;
}

/** True for a provider (or anything) with a `statuses()` method. */
export function isStatusSource(value: unknown): value is StatusSource {
  return typeof (value as Partial<StatusSource> | undefined)?.statuses === 'function';
}

/** The check; it fails naming up to five clusters that hold it back, with their states (never a reason text). */
export function fleetReadinessCheck(source: StatusSource, level: FleetReadiness = 'attempted'): HealthCheck {
  return () => {
    const waiting: string[] = [];
    for (const [name, status] of source.statuses()) {
      const holds =
        level === 'attempted'
          ? status.state === 'pending' && status.failures === 0
          : status.state !== 'engaged' && status.state !== 'notReady';
      if (holds) waiting.push(`${name} (${status.state})`);
    }
    if (waiting.length === 0) return;
    const shown = waiting.slice(0, 5).join(', ');
    const more = waiting.length > 5 ? ` and ${waiting.length - 5} more` : '';
    throw new Error(
      `${waiting.length} cluster${waiting.length === 1 ? '' : 's'} not ${level === 'attempted' ? 'tried yet' : 'engaged'}: ${shown}${more}`,
    );
  };
}
