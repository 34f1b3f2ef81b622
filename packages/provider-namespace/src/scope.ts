/**
 * The rule every part of a namespace member applies: a request is for a namespaced kind, in the member's namespace
 * (an omitted namespace means it). Whether a kind is namespaced comes from the REST mapper (discovery), so a CRD is
 * judged as the API server serves it.
 */
import type { ListOptions, ObjectKey, ObjectKind } from '@multicluster-runtime/core';
import type { RESTMapper } from '@multicluster-runtime/core/client';
import type { KubeObjectLike } from '@multicluster-runtime/core/object';
import { NamespaceScopeError } from './errors.js';

export class NamespaceScope {
  constructor(
    readonly namespace: string,
    private readonly restMapper: RESTMapper,
  ) {}

  /** Throws NamespaceScopeError unless `kind` is namespaced. */
  async checkKind(kind: ObjectKind, signal?: AbortSignal): Promise<void> {
    const mapping = await this.restMapper.mapping(kind, signal ? { signal } : {});
    if (!mapping.namespaced) throw new NamespaceScopeError(this.namespace, `${kind.kind} (${kind.apiVersion}) is cluster-scoped`);
  }

  /** `namespace` if it is the member's (or omitted); else throws NamespaceScopeError naming `what`. */
  checkNamespace(namespace: string | undefined, what: string): string {
    if (namespace === undefined || namespace === '' || namespace === this.namespace) return this.namespace;
    throw new NamespaceScopeError(this.namespace, `${what} is in namespace ${JSON.stringify(namespace)}`);
  }

  /** The key in the member's namespace. */
  async key(kind: ObjectKind, key: ObjectKey, signal?: AbortSignal): Promise<ObjectKey> {
    await this.checkKind(kind, signal);
    return { namespace: this.checkNamespace(key.namespace, `${kind.kind} ${JSON.stringify(key.name)}`), name: key.name };
  }

  /** List options confined to the member's namespace. */
  async list<O extends ListOptions>(kind: ObjectKind, options: O): Promise<O> {
    await this.checkKind(kind, options.signal);
    return { ...options, namespace: this.checkNamespace(options.namespace, `a list of ${kind.kind}`) };
  }

  /** The object to write, with the member's namespace filled in when it has none (the caller's object is not changed). */
  async object<T extends KubeObjectLike>(obj: T, signal?: AbortSignal): Promise<T> {
    const kind = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
    await this.checkKind(kind, signal);
    const namespace = this.checkNamespace(obj.metadata?.namespace, `${kind.kind} ${JSON.stringify(obj.metadata?.name ?? '')}`);
    return obj.metadata?.namespace === namespace ? obj : { ...obj, metadata: { ...obj.metadata, namespace } };
  }
}
