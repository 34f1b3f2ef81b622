/**
 * The one cache of a virtual-workspace endpoint, over `<url>/clusters/*`, shared by every logical cluster engaged
 * through it. Objects are stored under `cluster|namespace/name` and every kind is indexed by logical cluster, so each
 * cluster's reads go through its own index entry; each shared informer gets one router that hands events to the
 * right cluster's handlers. Field indexes asked for by many clusters are registered once.
 */
import type { IndexerFunc, KubeObject, Logger, ObjectKind } from '@multicluster-runtime/core';
import type { Informer, InformerCacheOptions } from '@multicluster-runtime/core/cache';
import { EventRouter, fieldIndexName, InformerCache } from '@multicluster-runtime/core/cache';
import { kindKey } from '@multicluster-runtime/core/object';
import { CLUSTER_FIELD, clusterObjectKey, logicalClusterOf } from './annotations.js';

export class WildcardCache {
  readonly cache: InformerCache;
  private readonly indexed = new Set<string>();
  private readonly routers = new WeakMap<Informer, EventRouter>();

  constructor(
    options: Omit<InformerCacheOptions, 'objectKey'>,
    private readonly log: Logger,
  ) {
    this.cache = new InformerCache({ ...options, objectKey: clusterObjectKey });
  }

  /** Indexes `kind` by logical cluster (once), so scoped reads never scan other clusters' objects. */
  async ensureClusterIndex(kind: ObjectKind): Promise<void> {
    await this.indexOnce(kind, CLUSTER_FIELD, (obj) => [logicalClusterOf(obj)]);
  }

  /** Registers a field index unless one for this kind and field exists: every engaged cluster asks for the same one. */
  async indexOnce(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    const key = `${kindKey(kind)}\u0000${field}`;
    if (this.indexed.has(key)) return;
    this.indexed.add(key);
    try {
      await this.cache.indexField(kind, field, extract);
    } catch (err) {
      this.indexed.delete(key);
      throw err;
    }
  }

  /**
   * The router of a shared informer: events go to the handlers of the object's logical cluster; a cluster's reads use
   * the cluster index (every informer a ScopedCache hands out has it: ensureClusterIndex comes first).
   */
  router<T extends KubeObject>(informer: Informer<T>): EventRouter<T> {
    let router = this.routers.get(informer);
    if (!router) {
      router = new EventRouter<KubeObject>(informer, logicalClusterOf, this.log, 'logicalCluster', fieldIndexName(CLUSTER_FIELD));
      this.routers.set(informer, router);
    }
    // One router per informer serves every type the informer's objects are read as.
    return router as unknown as EventRouter<T>;
  }
}
