/**
 * Client contracts: typed reads and writes against one cluster, and the kind ⇄ resource mapping behind them.
 * Every method takes an optional AbortSignal; failures are `ApiError`s (see ./errors.ts) whose `reason` says what
 * the server refused.
 */
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';

/** `metadata` of a list response. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * The answer to a list: the items and the list's metadata (resourceVersion, continue token).
 */
export interface ObjectList<T extends KubeObjectLike = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** Options of every client call: the signal that cancels it. */
export interface RequestOptions {
  signal?: AbortSignal;
}

/**
 * Options of a list: namespace, label and field selectors (a field-selector map also matches the cache's field
 * indexes), and paging.
 */
export interface ListOptions extends RequestOptions {
  /** Restrict to one namespace; absent lists across all namespaces. */
  namespace?: string;
  /** A label selector in the API's string syntax (`app=web,tier!=db`) or as a map of equalities. */
  labelSelector?: string | Record<string, string>;
  /**
   * A field selector. As a string it goes to the API server (`metadata.name=x`); as a map it also matches the
   * cache's field indexes (`{ 'spec.nodeName': 'n1' }`).
   */
  fieldSelector?: string | Record<string, string>;
  /**
   * Page size. With `limit` or `continue` one page is returned (its `metadata.continue` leads to the next); with
   * neither, the API client reads every page itself and returns them joined.
   */
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

/** Options of a write: a request's options plus dry run and field manager. */
export interface WriteOptions extends RequestOptions {
  fieldManager?: string;
  dryRun?: boolean;
}

/** How a patch body is read: JSON merge patch, JSON patch, strategic merge patch or server-side apply. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** A patch body and its type: merge (RFC 7386), json (RFC 6902), strategic (built-ins only), apply (server-side apply). */
export interface Patch {
  type: PatchType;
  body: unknown;
}

/** Options of a patch: a write's options plus the subresource to patch and, for server-side apply, whether to take fields from other managers. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
  /** Patch the status subresource. */
  subresource?: 'status';
}

/** Options of a delete: propagation to dependents, grace period, and preconditions on uid or resourceVersion. */
export interface DeleteOptions extends RequestOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** Reads objects: implemented by the API client and by the informer cache. */
export interface Reader {
  /** The object, or an ApiError with reason NotFound. */
  get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options?: RequestOptions): Promise<T>;
  /** The objects of a kind (in a namespace, matching selectors); from the cache, a consistent snapshot of it. */
  list<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, options?: ListOptions): Promise<ObjectList<T>>;
}

/** Writes objects. Objects carry their own apiVersion and kind. */
export interface Writer {
  /** Creates the object (409 AlreadyExists if it exists); resolves with it as stored. */
  create<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the object; its `metadata.resourceVersion` makes this a compare-and-swap (409 Conflict when stale). */
  update<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the status subresource only. */
  updateStatus<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T>;
  /** Patches the object (merge, JSON or strategic merge patch; see `mergeFrom`); resolves with it as stored. */
  patch<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, patch: Patch, options?: PatchOptions): Promise<T>;
  /** Server-side apply of a (partial) object; `fieldManager` is required. */
  apply<T extends KubeObjectLike>(obj: T, options: PatchOptions & { fieldManager: string }): Promise<T>;
  /** Deletes the object; resolves also when it only got a deletionTimestamp (finalizers pending). */
  delete(kind: ObjectKind, key: ObjectKey, options?: DeleteOptions): Promise<void>;
  /**
   * POSTs `body` to a subresource of the object that answers with another object (`serviceaccounts/token`,
   * `pods/eviction`, Gardener's `shoots/adminkubeconfig`) and resolves with that answer; controller-runtime's
   * `SubResource(name).Create`. Status is written with `updateStatus`, not here.
   */
  createSubresource<R extends object = Record<string, unknown>>(
    kind: ObjectKind,
    key: ObjectKey,
    subresource: string,
    body: object,
    options?: WriteOptions,
  ): Promise<R>;
}

/** Reads and writes objects of one cluster (controller-runtime's `client.Client`). */
export interface Client extends Reader, Writer {}

/** How a kind is served. */
export interface ResourceMapping {
  group: string;
  version: string;
  kind: string;
  /** The plural resource name used in URLs, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
  /** True if the resource has a `/status` subresource. */
  hasStatus: boolean;
}

/** Maps kinds to resources from API discovery; refreshes when a kind is unknown (a CRD may have just appeared). */
export interface RESTMapper {
  /** The mapping, or a NoKindMatchError once a refresh did not find the kind (an unknown kind is not an object NotFound). */
  mapping(kind: ObjectKind, options?: RequestOptions): Promise<ResourceMapping>;
  /** Forget cached discovery so the next lookup re-reads it. */
  reset(): void;
}
