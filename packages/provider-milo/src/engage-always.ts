/**
 * Runs a provider on every replica, not only on the elected leader. Core's manager starts its provider once elected
 * (as controller-runtime runs everything leader-gated by default), so a standby replica knows no project and answers
 * `getCluster` with ClusterNotFoundError: Milo's bug #732, where webhooks and quota checks served by non-leaders
 * failed. With these, every replica engages every project (controllers record the engagement and start watching only
 * once their replica is elected), so lookups work everywhere and only the leader reconciles.
 *
 * ```ts
 * const provider = new MiloProvider();
 * const mgr = newManager(config, withoutAutoStart(provider), { leaderElection: { enabled: true, name: 'milo-ops' } });
 * engageAlways(mgr, provider);
 * ```
 */
import type { Aware, Cluster, ClusterName, Provider, ProviderRunnable, Runnable } from '@multicluster-runtime/core';

/** `provider` without `start`, so a manager given it answers lookups from it but does not start it. */
export function withoutAutoStart(provider: ProviderRunnable): Provider {
  return {
    get: (name: ClusterName, signal?: AbortSignal): Promise<Cluster> => provider.get(name, signal),
    indexField: (kind, field, extract) => provider.indexField(kind, field, extract),
  };
}

/** What `engageAlways` needs of a manager: to add runnables and to engage clusters. */
export interface RunnableHost extends Aware {
  add(runnable: Runnable): void;
}

/** Adds a runnable to `manager` that starts `provider` on every replica, engaging its clusters with `manager`. */
export function engageAlways(manager: RunnableHost, provider: ProviderRunnable): void {
  manager.add({
    name: 'provider (every replica)',
    needLeaderElection: false,
    start: (signal) => provider.start(signal, manager),
  });
}
