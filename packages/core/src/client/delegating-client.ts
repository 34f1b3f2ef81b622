/**
 * The client a cluster hands controllers, as controller-runtime's manager client: `get` and `list` are served by a
 * reader (the cluster's informer cache, which starts the kind's informer on first read and waits for its sync), every
 * write goes to the API server, and kinds named in `disableFor` are read from the server too (controller-runtime's
 * `client.CacheOptions.DisableFor`). Reads from the cache return copies the caller may change.
 *
 * Also the way to build a direct client from a cluster's parts: `newDelegatingClient({ reader: cluster.apiReader,
 * client: cluster.client })` reads and writes on the server (leader election needs fresh reads).
 */
import { kindKey } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import type { Client, DeleteOptions, ListOptions, ObjectList, Patch, PatchOptions, Reader, RequestOptions, WriteOptions } from './types.js';

/** How a cluster's client reads (controller-runtime's `client.Options`). */
export interface ClientOptions {
  cache?: CacheReadOptions;
}

/** controller-runtime's `client.CacheOptions`. */
export interface CacheReadOptions {
  /**
   * Kinds read from the API server instead of the cache: kinds too large or too rarely read to keep an informer for,
   * or that the controller may get but not list and watch (e.g. one Secret).
   */
  disableFor?: readonly ObjectKind[];
}

export interface DelegatingClientOptions {
  /** Serves `get` and `list` (the informer cache). */
  reader: Reader;
  /** Serves every write, and the reads of kinds in `disableFor` (the API client). */
  client: Client;
  disableFor?: readonly ObjectKind[];
}

export class DelegatingClient implements Client {
  private readonly reader: Reader;
  private readonly client: Client;
  private readonly uncached: ReadonlySet<string>;

  constructor(options: DelegatingClientOptions) {
    if (!options?.reader || !options.client) throw new TypeError('a delegating client needs a reader and a client');
    this.reader = options.reader;
    this.client = options.client;
    const disableFor = options.disableFor ?? [];
    if (!Array.isArray(disableFor)) throw new TypeError('disableFor must be an array of kinds ({ apiVersion, kind })');
    this.uncached = new Set(
      disableFor.map((k: ObjectKind) => {
        if (!k || typeof k.apiVersion !== 'string' || typeof k.kind !== 'string' || !k.apiVersion || !k.kind) {
          throw new TypeError(`disableFor: expected { apiVersion, kind }, got ${JSON.stringify(k)}`);
        }
        return kindKey(k);
      }),
    );
  }

  get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options?: RequestOptions): Promise<T> {
    return this.readerFor(kind).get<T>(kind, key, options);
  }

  list<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, options?: ListOptions): Promise<ObjectList<T>> {
    return this.readerFor(kind).list<T>(kind, options);
  }

  create<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.client.create(obj, options);
  }

  update<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.client.update(obj, options);
  }

  updateStatus<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.client.updateStatus(obj, options);
  }

  patch<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, patch: Patch, options?: PatchOptions): Promise<T> {
    return this.client.patch<T>(kind, key, patch, options);
  }

  apply<T extends KubeObjectLike>(obj: T, options: PatchOptions & { fieldManager: string }): Promise<T> {
    return this.client.apply(obj, options);
  }

  delete(kind: ObjectKind, key: ObjectKey, options?: DeleteOptions): Promise<void> {
    return this.client.delete(kind, key, options);
  }

  private readerFor(kind: ObjectKind): Reader {
    return kind && this.uncached.has(kindKey(kind)) ? this.client : this.reader;
  }
}

/** A client reading with `reader` and writing with `client` (see DelegatingClient). */
export function newDelegatingClient(options: DelegatingClientOptions): Client {
  return new DelegatingClient(options);
}
