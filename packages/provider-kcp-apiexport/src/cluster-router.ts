/**
 * Routes one shared wildcard informer's events to the handlers of the logical cluster each object belongs to, found
 * by its `kcp.io/cluster` annotation: one map lookup per event however many clusters are engaged, so no cluster
 * is ever called for another cluster's objects.
 */
import type { KubeObject, Logger } from '@multicluster-runtime/core';
import type { Informer, Registration, ResourceEventHandler } from '@multicluster-runtime/core/cache';
import { logicalClusterOf } from './annotations.js';

interface Routed {
  readonly handler: ResourceEventHandler;
  removed: boolean;
  synced: boolean;
}

export class ClusterRouter {
  private readonly byCluster = new Map<string, Set<Routed>>();

  constructor(
    private readonly informer: Informer,
    private readonly log: Logger,
  ) {
    informer.addEventHandler({
      onAdd: (obj, initial) => this.each(obj, (h) => h.onAdd?.(obj, initial)),
      onUpdate: (oldObj, newObj) => this.each(newObj, (h) => h.onUpdate?.(oldObj, newObj)),
      onDelete: (obj, unknown) => this.each(obj, (h) => h.onDelete?.(obj, unknown)),
    });
  }

  /** Adds a handler for one cluster; it first gets onAdd for that cluster's objects already known. */
  add(cluster: string, handler: ResourceEventHandler): Registration {
    const routed: Routed = { handler, removed: false, synced: false };
    let set = this.byCluster.get(cluster);
    if (!set) this.byCluster.set(cluster, (set = new Set()));
    set.add(routed);
    for (const obj of this.informer.list()) {
      if (logicalClusterOf(obj) === cluster) this.call(routed, cluster, () => handler.onAdd?.(obj, true));
    }
    routed.synced = true;
    return {
      remove: () => {
        routed.removed = true;
        const current = this.byCluster.get(cluster);
        current?.delete(routed);
        if (current?.size === 0) this.byCluster.delete(cluster);
      },
      hasSynced: () => routed.synced && this.informer.hasSynced(),
    };
  }

  private each(obj: KubeObject, fn: (h: ResourceEventHandler) => void): void {
    const cluster = logicalClusterOf(obj);
    const set = this.byCluster.get(cluster);
    if (!set) return;
    for (const routed of [...set]) if (!routed.removed) this.call(routed, cluster, () => fn(routed.handler));
  }

  /** One cluster's failing handler is logged and never keeps the event from the others. */
  private call(routed: Routed, cluster: string, fn: () => unknown): void {
    try {
      const result = fn();
      if (result instanceof Promise)
        result.catch((err: unknown) => this.log.error('event handler rejected', err, { logicalCluster: cluster }));
    } catch (err) {
      this.log.error('event handler threw', err, { logicalCluster: cluster });
    }
  }
}
