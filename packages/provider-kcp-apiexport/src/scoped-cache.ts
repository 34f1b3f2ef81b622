/**
 * One logical cluster's view of an endpoint's shared wildcard cache: the `Cache` a per-cluster controller uses. Reads
 * add the cluster to the field selector (answered from the cluster index); informers hand handlers only this cluster's
 * events. The informers themselves belong to the shared cache, so `start` here only waits for the cluster's lifetime.
 */
import type { Cache, IndexerFunc, KubeObject, ListOptions, ObjectKey, ObjectKind, ObjectList } from '@multicluster-runtime/core';
import type { Informer, InformerLease, InformerOptions, InformerReadOptions } from '@multicluster-runtime/core/cache';
import { ScopedInformer } from '@multicluster-runtime/core/cache';
import type { KubeObjectLike } from '@multicluster-runtime/core/object';
import { ApiError } from '@multicluster-runtime/core';
import { whenAborted } from '@multicluster-runtime/core/signal';
import { CLUSTER_FIELD } from './annotations.js';
import type { WildcardCache } from './wildcard-cache.js';

type ReadOptions = InformerReadOptions;

function withCluster(selector: ListOptions['fieldSelector'], cluster: string): string | Record<string, string> {
  if (selector === undefined) return { [CLUSTER_FIELD]: cluster };
  if (typeof selector === 'string') {
    const escaped = cluster.replace(/[\\,=]/g, (c) => `\\${c}`);
    return selector.trim() === '' ? `${CLUSTER_FIELD}=${escaped}` : `${selector},${CLUSTER_FIELD}=${escaped}`;
  }
  return { ...selector, [CLUSTER_FIELD]: cluster };
}

/**
 * One logical cluster's view of an endpoint's shared wildcard cache: reads and lists see only its objects.
 */
export class ScopedCache implements Cache {
  /** @internal Made by LogicalCluster over the provider's shared wildcard cache. */
  constructor(
    private readonly shared: WildcardCache,
    readonly cluster: string,
  ) {}

  async getInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options?: InformerOptions): Promise<Informer<T>> {
    await this.shared.ensureClusterIndex(kind);
    const inner = await this.shared.cache.getInformer<T>(kind, options);
    return new ScopedInformer(this.shared.router(inner), this.cluster);
  }

  async acquireInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options?: InformerOptions): Promise<InformerLease<T>> {
    await this.shared.ensureClusterIndex(kind);
    const lease = await this.shared.cache.acquireInformer<T>(kind, options);
    return {
      informer: new ScopedInformer(this.shared.router(lease.informer), this.cluster),
      release: () => lease.release(),
    };
  }

  async get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options: ReadOptions = {}): Promise<T> {
    const list = await this.list<T>(kind, {
      ...options,
      ...(key.namespace ? { namespace: key.namespace } : {}),
      fieldSelector: { 'metadata.name': key.name },
    });
    const found = list.items.find((o) => !key.namespace || o.metadata?.namespace === key.namespace);
    if (found) return found;
    throw new ApiError(404, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message: `${kind.kind} "${key.name}" not found in logical cluster ${this.cluster}`,
      details: { name: key.name, kind: kind.kind },
    });
  }

  async list<T extends KubeObjectLike = KubeObject>(
    kind: ObjectKind,
    options: ListOptions & { metadataOnly?: boolean } = {},
  ): Promise<ObjectList<T>> {
    await this.shared.ensureClusterIndex(kind);
    return this.shared.cache.list<T>(kind, { ...options, fieldSelector: withCluster(options.fieldSelector, this.cluster) });
  }

  /** Registered once on the shared cache; values are not per cluster, reads add the cluster themselves. */
  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.shared.indexOnce(kind, field, extract);
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return this.shared.cache.waitForCacheSync(signal);
  }

  /** The shared cache runs for the endpoint; a cluster's view only lives until its signal aborts. */
  start(signal: AbortSignal): Promise<void> {
    return whenAborted(signal);
  }
}
