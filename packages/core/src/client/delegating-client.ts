/**
 * The client a cluster hands controllers, as controller-runtime's manager client: `get` and `list` are served by a
 * reader (the cluster's informer cache, which starts the kind's informer on first read and waits for its sync), every
 * write goes to the API server, and kinds named in `disableFor` are read from the server too (controller-runtime's
 * `client.CacheOptions.DisableFor`). Reads from the cache return copies the caller may change.
 *
 * Unlike controller-runtime's, a `get` sees this client's own writes: an object it wrote is read from the API server
 * until the cache has caught up with the write (recent-writes.ts), so the reconcile that a write queues does not act
 * on the state from before it.
 *
 * Also the way to build a direct client from a cluster's parts: `newDelegatingClient({ reader: cluster.apiReader,
 * client: cluster.client })` reads and writes on the server (leader election needs fresh reads).
 */
import { kindKey, objectKindOf } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import { isNotFound } from './errors.js';
import { RecentWrites, type RecentWritesOptions } from './recent-writes.js';
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

/** Options of a DelegatingClient: the cache reads come from, the direct client writes go to, kinds read uncached, and the writes it remembers for read-your-writes. */
export interface DelegatingClientOptions {
  /** Serves `get` and `list` (the informer cache). */
  reader: Reader;
  /** Serves every write, and the reads of kinds in `disableFor` (the API client). */
  client: Client;
  disableFor?: readonly ObjectKind[];
  /** How long and how many of its own writes the client remembers (see the module comment). */
  recentWrites?: RecentWritesOptions;
}

export class DelegatingClient implements Client {
  private readonly reader: Reader;
  private readonly client: Client;
  private readonly uncached: ReadonlySet<string>;
  private readonly written: RecentWrites;

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
    this.written = new RecentWrites(options.recentWrites);
  }

  async get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options?: RequestOptions): Promise<T> {
    const reader = this.readerFor(kind);
    const expected = reader === this.reader ? this.written.expectation(kind, key) : undefined;
    if (!expected) return reader.get<T>(kind, key, options);
    let cached: T | undefined;
    try {
      cached = await reader.get<T>(kind, key, options);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (expected.deleted) {
        this.written.caughtUp(kind, key);
        throw err;
      }
    }
    if (!expected.deleted && cached?.metadata?.resourceVersion === expected.resourceVersion) {
      this.written.caughtUp(kind, key);
      return cached;
    }
    return this.client.get<T>(kind, key, options);
  }

  list<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, options?: ListOptions): Promise<ObjectList<T>> {
    return this.readerFor(kind).list<T>(kind, options);
  }

  async create<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.remember(await this.client.create(obj, options), options);
  }

  async update<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.remember(await this.client.update(obj, options), options);
  }

  async updateStatus<T extends KubeObjectLike>(obj: T, options?: WriteOptions): Promise<T> {
    return this.remember(await this.client.updateStatus(obj, options), options);
  }

  async patch<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, patch: Patch, options?: PatchOptions): Promise<T> {
    return this.remember(await this.client.patch<T>(kind, key, patch, options), options, kind, key);
  }

  async apply<T extends KubeObjectLike>(obj: T, options: PatchOptions & { fieldManager: string }): Promise<T> {
    return this.remember(await this.client.apply(obj, options), options);
  }

  async delete(kind: ObjectKind, key: ObjectKey, options?: DeleteOptions): Promise<void> {
    await this.client.delete(kind, key, options);
    if (this.readerFor(kind) === this.reader) this.written.record(kind, key, undefined);
  }

  /** Passed through: the answer is not the object, so there is nothing to remember for reads. */
  createSubresource<R extends object = Record<string, unknown>>(
    kind: ObjectKind,
    key: ObjectKey,
    subresource: string,
    body: object,
    options?: WriteOptions,
  ): Promise<R> {
    return this.client.createSubresource<R>(kind, key, subresource, body, options);
  }

  /** Records a write's answer so the next `get` of the object sees at least it; returns the answer. */
  private remember<T extends KubeObjectLike>(stored: T, options?: WriteOptions, kind?: ObjectKind, key?: ObjectKey): T {
    if (options?.dryRun) return stored;
    const metadata = stored?.metadata;
    const name = key?.name ?? metadata?.name;
    if (!name || !metadata?.resourceVersion) return stored;
    let objectKind = kind;
    if (!objectKind) {
      try {
        objectKind = objectKindOf(stored);
      } catch {
        return stored; // an answer without apiVersion/kind cannot be matched to later reads
      }
    }
    if (this.readerFor(objectKind) !== this.reader) return stored;
    this.written.record(objectKind, { namespace: key?.namespace ?? metadata.namespace, name }, metadata.resourceVersion);
    return stored;
  }

  private readerFor(kind: ObjectKind): Reader {
    return kind && this.uncached.has(kindKey(kind)) ? this.client : this.reader;
  }
}

/** A client reading with `reader` and writing with `client` (see DelegatingClient). */
export function newDelegatingClient(options: DelegatingClientOptions): Client {
  return new DelegatingClient(options);
}
