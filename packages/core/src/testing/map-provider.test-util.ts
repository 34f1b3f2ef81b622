/**
 * A provider whose source of truth is an in-memory map of name → kubeconfig, with switchable faults, so the suite's
 * own tests can show that each acceptance case passes for a correct provider and fails for the fault it targets.
 */
import { newCluster } from '../cluster/cluster.js';
import type { Cluster } from '../cluster/types.js';
import type { IndexerFunc } from '../cache/types.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { whenAborted } from '../signal/wait.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware, ProviderContext, ProviderRunnable } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';
import { ClusterSet } from '../providers/clusters/cluster-set.js';

export interface MapProviderFaults {
  /** `get` of an unknown name throws a plain Error. */
  plainNotFound?: boolean;
  /** `indexField` does nothing. */
  dropIndexes?: boolean;
  /** Members removed from the map stay engaged. */
  keepRemoved?: boolean;
  /** Every member is engaged with the first member's kubeconfig. */
  crossWired?: boolean;
  /** Starting leaves an interval timer running after stop. */
  leakTimer?: boolean;
}

/** The source of truth: members by name; `changed` wakes the running provider. */
export class MemberMap {
  readonly members = new Map<ClusterName, KubeConfig>();
  private listeners = new Set<() => void>();

  set(name: ClusterName, kubeconfig: KubeConfig): void {
    this.members.set(name, kubeconfig);
    this.changed();
  }

  delete(name: ClusterName): void {
    this.members.delete(name);
    this.changed();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

/** Timers the `leakTimer` fault left running, for the test to clear once it has seen them. */
export const leakedTimers: NodeJS.Timeout[] = [];

export class MapProvider implements ProviderRunnable {
  private readonly set = new ClusterSet({ waitCacheTimeoutMs: 10_000, owner: 'map-provider' });
  private first?: KubeConfig;

  constructor(
    private readonly source: MemberMap,
    private readonly faults: MapProviderFaults = {},
  ) {}

  async start(signal: AbortSignal, { aware }: ProviderContext): Promise<void> {
    if (this.faults.leakTimer) leakedTimers.push(setInterval(() => {}, 60_000));
    let chain = Promise.resolve();
    const sync = () => {
      chain = chain.then(() => this.sync(aware, signal));
    };
    const unsubscribe = this.source.onChange(sync);
    sync();
    try {
      await whenAborted(signal);
    } finally {
      unsubscribe();
      await chain;
      await this.set.removeAll();
    }
  }

  private async sync(aware: Aware, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    for (const [name, kc] of this.source.members) {
      this.first ??= kc;
      const config = this.faults.crossWired ? this.first : kc;
      const candidate = newCluster(config, { name });
      const outcome = await this.set.addOrReplace(name, candidate, aware, { signal }).catch(() => 'failed' as const);
      if (outcome === 'unchanged') await candidate.close();
    }
    if (this.faults.keepRemoved) return;
    for (const name of this.set.names()) if (!this.source.members.has(name)) await this.set.remove(name);
  }

  async get(name: ClusterName): Promise<Cluster> {
    if (this.faults.plainNotFound && !this.set.has(name)) throw new Error(`no cluster ${name}`);
    return this.set.get(name);
  }

  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    if (this.faults.dropIndexes) return;
    await this.set.indexField(kind, field, extract);
  }
}
