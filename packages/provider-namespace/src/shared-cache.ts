/**
 * What every member of one provider shares: the host cluster's cache (one informer per kind, over all namespaces),
 * one event router per informer that hands each member only its namespace's events, and field indexes registered
 * once on the host however many members ask. A member's cache is a NamespacedCache over it.
 */
import type {
  Cache,
  Cluster,
  IndexerFunc,
  KubeObject,
  ListOptions,
  Logger,
  ObjectKey,
  ObjectKind,
  ObjectList,
} from '@multicluster-runtime/core';
import type { Informer, InformerLease, InformerOptions, InformerReadOptions } from '@multicluster-runtime/core/cache';
import { EventRouter, IndexConflictError, NAMESPACE_INDEX, ScopedInformer } from '@multicluster-runtime/core/cache';
import { kindKey, type KubeObjectLike } from '@multicluster-runtime/core/object';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { NamespaceScope } from './scope.js';

const namespaceOf = (obj: KubeObject): string => obj.metadata.namespace ?? '';

export class SharedCache {
  private readonly indexed = new Set<string>();
  private readonly routers = new WeakMap<Informer, EventRouter>();

  constructor(
    readonly host: Cluster,
    private readonly log: Logger,
  ) {}

  /**
   * Registers a field index on the host unless this kind and field have one: every member asks for the same. When the
   * host is the manager's local cluster, the manager has registered the fleet's index there already (it indexes the
   * local cluster and the provider's clusters alike), and members use that one.
   */
  async indexOnce(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    const key = `${kindKey(kind)}\u0000${field}`;
    if (this.indexed.has(key)) return;
    this.indexed.add(key);
    try {
      await this.host.cache.indexField(kind, field, extract);
    } catch (err) {
      if (err instanceof IndexConflictError && err.alreadyRegistered) return;
      this.indexed.delete(key);
      throw err;
    }
  }

  /** The router of a host informer: events go to the handlers of the object's namespace; reads use its namespace index. */
  router<T extends KubeObject>(informer: Informer<T>): EventRouter<T> {
    let router = this.routers.get(informer);
    if (!router)
      this.routers.set(informer, (router = new EventRouter<KubeObject>(informer, namespaceOf, this.log, 'namespace', NAMESPACE_INDEX)));
    // One router per informer serves every type the informer's objects are read as.
    return router as unknown as EventRouter<T>;
  }
}

/** One member's view of the shared cache: its informers, reads and lists see only its namespace. */
export class NamespacedCache implements Cache {
  constructor(
    private readonly shared: SharedCache,
    private readonly scope: NamespaceScope,
  ) {}

  async getInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options?: InformerOptions): Promise<Informer<T>> {
    await this.scope.checkKind(kind);
    const inner = await this.shared.host.cache.getInformer<T>(kind, options);
    return new ScopedInformer(this.shared.router(inner), this.scope.namespace);
  }

  async acquireInformer<T extends KubeObject = KubeObject>(kind: ObjectKind, options?: InformerOptions): Promise<InformerLease<T>> {
    await this.scope.checkKind(kind);
    const lease = await this.shared.host.cache.acquireInformer<T>(kind, options);
    return { informer: new ScopedInformer(this.shared.router(lease.informer), this.scope.namespace), release: () => lease.release() };
  }

  async get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options?: InformerReadOptions): Promise<T> {
    return this.shared.host.cache.get<T>(kind, await this.scope.key(kind, key, options?.signal), options);
  }

  async list<T extends KubeObjectLike = KubeObject>(
    kind: ObjectKind,
    options: ListOptions & InformerReadOptions = {},
  ): Promise<ObjectList<T>> {
    return this.shared.host.cache.list<T>(kind, await this.scope.list(kind, options));
  }

  /** Registered once on the host cache; a member's reads add its namespace themselves. */
  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    await this.scope.checkKind(kind);
    return this.shared.indexOnce(kind, field, extract);
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return this.shared.host.cache.waitForCacheSync(signal);
  }

  /** The host's cache runs for the provider; a member's view only lives until its signal aborts. */
  start(signal: AbortSignal): Promise<void> {
    return whenAborted(signal);
  }
}
