/**
 * Whether an owner kind is namespaced, per cluster. The answer comes from the cluster's RESTMapper, which is async,
 * while handlers must not block: the first event of a cluster starts the lookup and later events reuse it. Clusters
 * are weakly held, so a disengaged cluster's answer goes with it.
 */
import type { Cluster } from '../cluster/types.js';
import type { Logger } from '../log/logger.js';
import { kindKey } from '../object/gvk.js';
import type { ObjectKind } from '../object/types.js';

/** Bounds one discovery lookup so an unreachable cluster cannot hold events forever. */
const LOOKUP_TIMEOUT_MS = 30_000;

export class OwnerScope {
  private readonly known = new WeakMap<Cluster, boolean>();
  private readonly pending = new WeakMap<Cluster, Promise<boolean>>();

  constructor(
    private readonly ownerKind: ObjectKind,
    private readonly log: () => Logger,
  ) {}

  /**
   * Calls `then(namespaced)` now if the scope is known, else once the lookup finishes. A failed lookup is logged and
   * treated as namespaced (owners are almost always namespaced, and a request is better than a lost event); it is
   * not remembered, so the next event asks again.
   */
  withScope(cluster: Cluster, then: (namespaced: boolean) => void): void {
    const known = this.known.get(cluster);
    if (known !== undefined) {
      then(known);
      return;
    }
    let lookup = this.pending.get(cluster);
    if (!lookup) {
      lookup = this.lookup(cluster);
      this.pending.set(cluster, lookup);
    }
    // `then` enqueues; if that throws it must be reported here, not become an unhandled rejection.
    lookup.then(then).catch((err: unknown) => {
      this.log().error('enqueueing owners failed', err, { cluster: cluster.name, ownerKind: kindKey(this.ownerKind) });
    });
  }

  private async lookup(cluster: Cluster): Promise<boolean> {
    try {
      const mapping = await cluster.restMapper.mapping(this.ownerKind, { signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
      this.known.set(cluster, mapping.namespaced);
      return mapping.namespaced;
    } catch (err) {
      this.log().error('could not look up whether the owner kind is namespaced; assuming it is', err, {
        cluster: cluster.name,
        ownerKind: kindKey(this.ownerKind),
      });
      return true;
    } finally {
      this.pending.delete(cluster);
    }
  }
}
