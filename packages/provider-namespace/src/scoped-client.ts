/**
 * A member's client and API reader: the host cluster's, confined by the member's NamespaceScope. Every call is
 * checked before it reaches the host (a refused call sends nothing), and an object without a namespace is written
 * into the member's.
 */
import type { Client, KubeObject, ListOptions, ObjectKey, ObjectKind, ObjectList, Patch, Reader } from '@multicluster-runtime/core';
import type { DeleteOptions, PatchOptions, RequestOptions, WriteOptions } from '@multicluster-runtime/core/client';
import type { KubeObjectLike } from '@multicluster-runtime/core/object';
import type { NamespaceScope } from './scope.js';

/** The host's reader (cache or API server) seen from one member. */
export class NamespacedReader implements Reader {
  constructor(
    protected readonly inner: Reader,
    protected readonly scope: NamespaceScope,
  ) {}

  async get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options?: RequestOptions): Promise<T> {
    return this.inner.get<T>(kind, await this.scope.key(kind, key, options?.signal), options);
  }

  async list<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, options: ListOptions = {}): Promise<ObjectList<T>> {
    return this.inner.list<T>(kind, await this.scope.list(kind, options));
  }
}

/** The host's client seen from one member: reads from the shared cache, writes to the host's API server. */
export class NamespacedClient extends NamespacedReader implements Client {
  constructor(
    protected override readonly inner: Client,
    scope: NamespaceScope,
  ) {
    super(inner, scope);
  }

  async create<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.inner.create(await this.scope.object(obj, options?.signal), options);
  }

  async update<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.inner.update(await this.scope.object(obj, options?.signal), options);
  }

  async updateStatus<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.inner.updateStatus(await this.scope.object(obj, options?.signal), options);
  }

  async patch<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, patch: Patch, options?: PatchOptions): Promise<T> {
    return this.inner.patch<T>(kind, await this.scope.key(kind, key, options?.signal), patch, options);
  }

  async apply<T extends KubeObjectLike>(obj: T, options: PatchOptions & { fieldManager: string }): Promise<T> {
    return this.inner.apply(await this.scope.object(obj, options.signal), options);
  }

  async delete(kind: ObjectKind, key: ObjectKey, options?: DeleteOptions): Promise<void> {
    return this.inner.delete(kind, await this.scope.key(kind, key, options?.signal), options);
  }

  async createSubresource<R extends object = Record<string, unknown>>(
    kind: ObjectKind,
    key: ObjectKey,
    subresource: string,
    body: object,
    options?: WriteOptions,
  ): Promise<R> {
    return this.inner.createSubresource<R>(kind, await this.scope.key(kind, key, options?.signal), subresource, body, options);
  }
}
