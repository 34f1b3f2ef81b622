/**
 * The informer's local copy of a kind: frozen objects keyed by `namespace/name`, a built-in namespace index and
 * named user indexes (value → keys), and an atomic replace for relists that reports what changed meanwhile.
 */
import type { KubeObject } from '../object/types.js';
import { deepFreeze, stripManagedFields, type TransformFunc } from './transform.js';
import type { StoreAccounting } from './budget.js';

/** Extracts the values an object is indexed under. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

/** What one write did to the store, as handlers see it. */
export type StoreChange<T extends KubeObject = KubeObject> =
  | { readonly type: 'add'; readonly object: T }
  | { readonly type: 'update'; readonly oldObject: T; readonly object: T }
  /** `stateUnknown`: inferred from a relist, so `object` is the last state seen, not the final one. */
  | { readonly type: 'delete'; readonly object: T; readonly stateUnknown: boolean };

/** Options of a Store: a transform applied to every object before it is stored, what to do when an index function throws, and the key function. */
export interface StoreOptions<T extends KubeObject = KubeObject> {
  /** Applied to every object before it is frozen and kept. Default: drop `metadata.managedFields`. */
  transform?: TransformFunc;
  /** Called when an index function throws; the object is then left out of that index. */
  onIndexError?: (index: string, obj: T, err: unknown) => void;
  /**
   * The key each object is stored under. Default `namespace/name`. Wildcard views that hold objects of several
   * clusters (kcp's `/clusters/*`) need a key that includes the cluster; `get(namespace, name)` then finds nothing,
   * and reads go through an index instead.
   */
  objectKey?: (obj: KubeObject) => string;
  /** Told of every change in what the store holds (stored, and buffered during a relist): the cache's limits. */
  accounting?: StoreAccounting;
}

/** Name of the built-in index on `metadata.namespace` ("" for cluster-scoped objects). */
export const NAMESPACE_INDEX = 'namespace';

/** The store key of an object: `namespace/name`, or `name` when cluster-scoped (client-go's MetaNamespaceKey). */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function defaultKeyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

interface Index<T extends KubeObject> {
  readonly extract: IndexFunc<T>;
  readonly keysByValue: Map<string, Set<string>>;
  readonly valuesByKey: Map<string, readonly string[]>;
}

/** The objects an informer holds, keyed by namespace/name, with field indexes kept current on every write. */
export class Store<T extends KubeObject = KubeObject> {
  private objects = new Map<string, T>();
  private readonly indexes = new Map<string, Index<T>>();
  private staged: Map<string, T> | undefined;
  private readonly transform: TransformFunc;
  private readonly onIndexError: (index: string, obj: T, err: unknown) => void;
  private readonly keyOf: (obj: KubeObject) => string;
  private readonly accounting: StoreAccounting | undefined;

  constructor(options: StoreOptions<T> = {}) {
    this.transform = options.transform ?? stripManagedFields;
    this.onIndexError = options.onIndexError ?? (() => {});
    this.keyOf = options.objectKey ?? defaultKeyOf;
    this.accounting = options.accounting;
    this.addIndex(NAMESPACE_INDEX, (obj) => [obj.metadata.namespace ?? '']);
  }

  get size(): number {
    return this.objects.size;
  }

  /** The object with this namespace (undefined for cluster-scoped) and name, or undefined. */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(objectKey(namespace, name));
  }

  /** Every object, in key order (the order the API server lists in). */
  list(): T[] {
    return sortedValues(this.objects);
  }

  /** Whether an index of this name is registered. */
  hasIndex(name: string): boolean {
    return this.indexes.has(name);
  }

  /** Objects whose index `name` holds `value`, in key order. Throws if there is no such index. */
  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new RangeError(`store has no index ${JSON.stringify(name)}`);
    const keys = [...(index.keysByValue.get(value) ?? [])].sort();
    return keys.map((key) => this.objects.get(key)).filter((obj): obj is T => obj !== undefined);
  }

  /** Values `obj` is indexed under in index `name` (as computed when it was stored). */
  indexValues(name: string, obj: T): readonly string[] {
    return this.indexes.get(name)?.valuesByKey.get(this.keyOf(obj)) ?? [];
  }

  /** Adds an index and fills it from the objects already stored. Throws if the name is taken. */
  addIndex(name: string, extract: IndexFunc<T>): void {
    if (this.indexes.has(name)) throw new RangeError(`store already has an index ${JSON.stringify(name)}`);
    const index: Index<T> = { extract, keysByValue: new Map(), valuesByKey: new Map() };
    this.indexes.set(name, index);
    for (const [key, obj] of this.objects) this.indexAdd(name, index, key, obj);
  }

  /**
   * Stores an added or modified object. Returns the change, or undefined when the stored copy already has this
   * resourceVersion (a replayed event), so handlers never see an update that changed nothing.
   */
  apply(received: KubeObject): StoreChange<T> | undefined {
    const object = this.prepare(received);
    const key = this.keyOf(object);
    const old = this.objects.get(key);
    if (old && sameVersion(old, object)) return undefined;
    this.put(key, object, old);
    return old ? { type: 'update', oldObject: old, object } : { type: 'add', object };
  }

  /** Removes an object the server reported deleted. Handlers are told even if it was never stored. */
  delete(received: KubeObject): StoreChange<T> {
    const object = this.prepare(received);
    const key = this.keyOf(object);
    if (this.objects.has(key)) this.remove(key);
    return { type: 'delete', object, stateUnknown: false };
  }

  /** Starts buffering a relist; reads keep serving the current objects until {@link commitReplace}. */
  beginReplace(): void {
    if (this.staged) this.unstage(this.staged);
    this.staged = new Map();
  }

  /** Buffers one object of the relist started by {@link beginReplace}. */
  stage(received: KubeObject): void {
    if (!this.staged) throw new Error('Store.stage called without beginReplace');
    const object = this.prepare(received);
    const key = this.keyOf(object);
    if (this.accounting) {
      const previous = this.staged.get(key);
      const sizeOf = this.accounting.sizeOf;
      this.accounting.change(previous ? 0 : 1, sizeOf ? sizeOf(object) - (previous ? sizeOf(previous) : 0) : 0);
    }
    this.staged.set(key, object);
  }

  /**
   * Replaces the contents with the buffered relist in one step and returns the difference: adds, updates (only where
   * the resourceVersion changed) and deletes with `stateUnknown` true for objects that vanished meanwhile.
   */
  commitReplace(): StoreChange<T>[] {
    const staged = this.staged;
    if (!staged) throw new Error('Store.commitReplace called without beginReplace');
    this.staged = undefined;
    this.unstage(staged);
    const changes: StoreChange<T>[] = [];
    for (const [key, old] of this.objects) {
      if (!staged.has(key)) {
        this.remove(key);
        changes.push({ type: 'delete', object: old, stateUnknown: true });
      }
    }
    for (const [key, object] of staged) {
      const old = this.objects.get(key);
      if (old && sameVersion(old, object)) continue;
      this.put(key, object, old);
      changes.push(old ? { type: 'update', oldObject: old, object } : { type: 'add', object });
    }
    return changes;
  }

  private prepare(received: KubeObject): T {
    if (typeof received?.metadata?.name !== 'string' || received.metadata.name === '') {
      throw new TypeError('cannot store an object without metadata.name');
    }
    return deepFreeze(this.transform(received)) as T;
  }

  private put(key: string, object: T, old: T | undefined): void {
    this.objects.set(key, object);
    for (const [name, index] of this.indexes) {
      if (old) this.indexReplace(name, index, key, object);
      else this.indexAdd(name, index, key, object);
    }
    const sizeOf = this.accounting?.sizeOf;
    this.accounting?.change(old ? 0 : 1, sizeOf ? sizeOf(object) - (old ? sizeOf(old) : 0) : 0);
  }

  private remove(key: string): void {
    const old = this.objects.get(key);
    for (const index of this.indexes.values()) this.indexRemove(index, key);
    this.objects.delete(key);
    if (old) this.accounting?.change(-1, this.accounting.sizeOf ? -this.accounting.sizeOf(old) : 0);
  }

  /** Releases what a relist buffered (its objects are stored, or dropped, by then). */
  private unstage(staged: Map<string, T>): void {
    if (!this.accounting || staged.size === 0) return;
    const sizeOf = this.accounting.sizeOf;
    let bytes = 0;
    if (sizeOf) for (const obj of staged.values()) bytes += sizeOf(obj);
    this.accounting.change(-staged.size, -bytes);
  }

  /** Releases everything the store holds from its accounting (the informer stopped; the store is dropped). */
  release(): void {
    if (this.staged) this.unstage(this.staged);
    this.staged = undefined;
    this.unstage(this.objects);
  }

  private indexAdd(name: string, index: Index<T>, key: string, obj: T): void {
    const values = this.indexValuesOf(name, index, obj);
    if (values) this.indexInsert(index, key, values);
  }

  /** Re-indexes an updated object; most updates leave its index values as they were, and then nothing is touched. */
  private indexReplace(name: string, index: Index<T>, key: string, obj: T): void {
    const values = this.indexValuesOf(name, index, obj);
    const previous = index.valuesByKey.get(key);
    if (values && previous && sameValues(values, previous)) return;
    this.indexRemove(index, key);
    if (values) this.indexInsert(index, key, values);
  }

  /** What `obj` is indexed under, without duplicates; undefined when the index function failed. */
  private indexValuesOf(name: string, index: Index<T>, obj: T): string[] | undefined {
    try {
      const extracted = index.extract(obj);
      if (!Array.isArray(extracted) || extracted.some((v) => typeof v !== 'string')) {
        throw new TypeError(`index function returned ${JSON.stringify(extracted)}, not an array of strings`);
      }
      return extracted.length < 2 ? extracted : [...new Set(extracted)];
    } catch (err) {
      this.onIndexError(name, obj, err);
      return undefined;
    }
  }

  private indexInsert(index: Index<T>, key: string, values: string[]): void {
    if (values.length === 0) return;
    index.valuesByKey.set(key, values);
    for (const value of values) {
      let keys = index.keysByValue.get(value);
      if (!keys) index.keysByValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private indexRemove(index: Index<T>, key: string): void {
    const values = index.valuesByKey.get(key);
    if (!values) return;
    index.valuesByKey.delete(key);
    for (const value of values) {
      const keys = index.keysByValue.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index.keysByValue.delete(value);
    }
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Equal resourceVersions mean the same state; objects without one are always treated as changed. */
function sameVersion(a: KubeObject, b: KubeObject): boolean {
  const rv = a.metadata.resourceVersion;
  return rv !== undefined && rv === b.metadata.resourceVersion;
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.keys()].sort().map((key) => map.get(key) as T);
}
