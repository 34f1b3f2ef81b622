/**
 * The in-memory object store of one API server: one global revision counter (etcd's revision), objects keyed by
 * (logical cluster, resource, namespace, name), and a bounded event log that serves watch replay and lists at an exact
 * past revision (by undoing newer events). compact() forgets history so the 410 paths can be exercised.
 *
 * A stored object is never changed in place: every write stores a new object. Lists and watch events hand out the
 * stored objects themselves, and adopt() stores objects whose parts are frozen and shared between servers.
 */
import { cloneJson, jsonEqual } from '@multicluster-runtime/apimachinery';
import { ResourceVersionExpiredError, ResourceVersionTooLargeError } from './errors.js';
import type { EventType, ObjectKey, Scope, StoreEvent, StoreListener, StoredObject } from './types.js';

export interface StoreOptions {
  /** How many events to keep for replay and exact lists (default 10,000). */
  historySize?: number;
}

export interface Snapshot {
  readonly rv: number;
  /** Sorted by sortKey. Shared internal objects: callers must not mutate them. */
  readonly items: readonly { sortKey: string; object: StoredObject }[];
}

export class Store {
  private rv = 0;
  /** Highest revision whose event is no longer in the log; replay from any N >= this is complete. */
  private compactedRv = 0;
  private readonly objects = new Map<string, Map<string, StoredObject>>();
  /** Per resource, its keys in list order (see sortedKeysOf); dropped when an object is added or removed. */
  private readonly sortedKeys = new Map<string, string[]>();
  /** The last snapshot taken, reused while nothing was written (callers must not change its items). */
  private lastSnapshot: { key: string; snapshot: Snapshot } | undefined;
  private events: StoreEvent[] = [];
  private readonly listeners = new Map<string, Set<StoreListener>>();
  private readonly allListeners = new Set<StoreListener>();
  private readonly historySize: number;

  constructor(opts: StoreOptions = {}) {
    this.historySize = Math.max(1, opts.historySize ?? 10_000);
  }

  get currentRv(): number {
    return this.rv;
  }

  get oldestRv(): number {
    return this.compactedRv;
  }

  static sortKey(key: Pick<ObjectKey, 'cluster' | 'namespace' | 'name'>): string {
    // etcd key order is <namespace>/<name>; the logical cluster goes first so wildcard lists group by cluster.
    return `${key.cluster}\u0000${key.namespace}/${key.name}`;
  }

  /** The logical cluster part of a sort key. */
  static clusterOfSortKey(sortKey: string): string {
    return sortKey.slice(0, sortKey.indexOf('\u0000'));
  }

  /** A deep copy of the stored object, or undefined. */
  get(key: ObjectKey): StoredObject | undefined {
    const obj = this.objects.get(key.resource)?.get(Store.sortKey(key));
    return obj === undefined ? undefined : cloneJson(obj);
  }

  /** Whether an object is stored under `key` (without the copy get() makes). */
  has(key: ObjectKey): boolean {
    return this.objects.get(key.resource)?.has(Store.sortKey(key)) ?? false;
  }

  /** Stores a new object (the caller checked it does not exist). Returns a copy with its resourceVersion. */
  create(key: ObjectKey, obj: StoredObject): StoredObject {
    return this.write('ADDED', key, obj, undefined);
  }

  /**
   * Stores a new object as it is, without the copies create() makes: for objects built on frozen parts that several
   * stores share. `obj.metadata` must be the caller's own, unfrozen: the store sets its resourceVersion.
   */
  adopt(key: ObjectKey, obj: StoredObject): void {
    this.write('ADDED', key, obj, undefined, false);
  }

  /**
   * Replaces an existing object. A write that changes nothing (ignoring resourceVersion) stores nothing: no new
   * revision and no event, like etcd3's GuaranteedUpdate byte comparison.
   */
  update(key: ObjectKey, obj: StoredObject): StoredObject {
    const prev = this.objects.get(key.resource)?.get(Store.sortKey(key));
    if (prev === undefined) throw new Error(`store: update of a missing object ${describe(key)}`);
    const candidate = { ...obj, metadata: { ...obj.metadata, resourceVersion: prev.metadata.resourceVersion } };
    if (jsonEqual(candidate, prev)) return cloneJson(prev);
    return this.write('MODIFIED', key, obj, prev);
  }

  /**
   * Removes an object; the DELETED event carries its last state with the delete's revision. `finalState` replaces
   * that last state when an update is what triggers the delete (the last finalizer removed).
   */
  delete(key: ObjectKey, finalState?: StoredObject): StoredObject | undefined {
    const prev = this.objects.get(key.resource)?.get(Store.sortKey(key));
    if (prev === undefined) return undefined;
    return this.write('DELETED', key, finalState ?? prev, prev);
  }

  /** Current objects in scope, sorted. The same array until the next write: the pages of one list share it. */
  snapshot(scope: Scope): Snapshot {
    const key = `${scope.resource}\u0000${scope.cluster ?? '*'}\u0000${scope.namespace ?? '*'}`;
    if (this.lastSnapshot?.key === key && this.lastSnapshot.snapshot.rv === this.rv) return this.lastSnapshot.snapshot;
    const snapshot = { rv: this.rv, items: this.currentItems(scope) };
    this.lastSnapshot = { key, snapshot };
    return snapshot;
  }

  /** Objects in scope as they were at revision `rv`. Throws when history no longer reaches back that far. */
  snapshotAt(scope: Scope, rv: number): Snapshot {
    if (rv > this.rv) throw new ResourceVersionTooLargeError(rv, this.rv);
    if (rv < this.compactedRv) throw new ResourceVersionExpiredError(rv, this.compactedRv);
    // The common case of a paginated list: its pages read the revision that is still current.
    if (rv === this.rv) return this.snapshot(scope);
    const items = new Map(this.currentItems(scope).map((i) => [i.sortKey, i.object]));
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.rv <= rv) break;
      if (!inScope(scope, e.key)) continue;
      if (e.type === 'ADDED') items.delete(e.sortKey);
      else items.set(e.sortKey, e.prev!);
    }
    return { rv, items: [...items].sort(([a], [b]) => compare(a, b)).map(([sortKey, object]) => ({ sortKey, object })) };
  }

  /** Events in scope with revision > rv, oldest first. Throws when they were compacted away. */
  eventsAfter(scope: Scope, rv: number): StoreEvent[] {
    if (rv > this.rv) throw new ResourceVersionTooLargeError(rv, this.rv);
    if (rv < this.compactedRv) throw new ResourceVersionExpiredError(rv, this.compactedRv);
    const out: StoreEvent[] = [];
    let i = this.events.length;
    while (i > 0 && this.events[i - 1]!.rv > rv) i--;
    for (; i < this.events.length; i++) if (inScope(scope, this.events[i]!.key)) out.push(this.events[i]!);
    return out;
  }

  /**
   * Calls `listener` synchronously for every later write to `resource`. Events arrive in revision order. The
   * listener gets the store's own objects: it must not mutate them.
   */
  subscribe(resource: string, listener: StoreListener): () => void {
    let set = this.listeners.get(resource);
    if (!set) this.listeners.set(resource, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(resource) === set) this.listeners.delete(resource);
    };
  }

  /** Like subscribe(), for writes to every resource (controllers that follow references across kinds). */
  subscribeAll(listener: StoreListener): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }

  /** Forgets every past event: watches and exact lists from older revisions now get 410. */
  compact(): void {
    this.events = [];
    this.compactedRv = this.rv;
  }

  /** Group-qualified names of the resources that currently hold objects (used by cascading deletes). */
  resourcesWithObjects(): string[] {
    return [...this.objects.keys()];
  }

  private currentItems(scope: Scope): { sortKey: string; object: StoredObject }[] {
    const byKey = this.objects.get(scope.resource);
    if (!byKey) return [];
    const prefix =
      scope.cluster === undefined ? undefined : `${scope.cluster}\u0000${scope.namespace === undefined ? '' : `${scope.namespace}/`}`;
    const out: { sortKey: string; object: StoredObject }[] = [];
    for (const sortKey of this.sortedKeysOf(scope.resource, byKey)) {
      if (prefix !== undefined && !sortKey.startsWith(prefix)) continue;
      if (prefix === undefined && scope.namespace !== undefined && !sortKey.includes(`\u0000${scope.namespace}/`)) continue;
      out.push({ sortKey, object: byKey.get(sortKey)! });
    }
    return out;
  }

  /**
   * A resource's keys in list order, sorted once and kept until an object is added or removed (updates keep the
   * keys): a paginated list of many objects asks for them once per page.
   */
  private sortedKeysOf(resource: string, byKey: Map<string, StoredObject>): string[] {
    let keys = this.sortedKeys.get(resource);
    if (!keys) this.sortedKeys.set(resource, (keys = [...byKey.keys()].sort(compare)));
    return keys;
  }

  private write(type: EventType, key: ObjectKey, obj: StoredObject, prev: StoredObject | undefined, copy = true): StoredObject {
    this.rv += 1;
    const stored = copy ? cloneJson(obj) : obj;
    stored.metadata.resourceVersion = String(this.rv);
    const sortKey = Store.sortKey(key);
    let byKey = this.objects.get(key.resource);
    if (!byKey) this.objects.set(key.resource, (byKey = new Map<string, StoredObject>()));
    if (type !== 'MODIFIED') this.sortedKeys.delete(key.resource);
    if (type === 'DELETED') {
      byKey.delete(sortKey);
      if (byKey.size === 0) this.objects.delete(key.resource);
    } else {
      byKey.set(sortKey, stored);
    }
    const event: StoreEvent =
      prev === undefined ? { rv: this.rv, type, key, sortKey, object: stored } : { rv: this.rv, type, key, sortKey, object: stored, prev };
    this.events.push(event);
    if (this.events.length > this.historySize) {
      // Trim in chunks so a steady write rate does not shift the array on every write.
      const drop = Math.max(1, Math.floor(this.historySize / 10));
      this.compactedRv = this.events[drop - 1]!.rv;
      this.events = this.events.slice(drop);
    }
    for (const listener of [...(this.listeners.get(key.resource) ?? []), ...this.allListeners]) {
      // One failing listener must not cost the others (other watchers) their event.
      try {
        listener(event);
      } catch (err) {
        process.emitWarning(`envtest store listener failed: ${err instanceof Error ? err.message : String(err)}`, 'EnvtestWarning');
      }
    }
    return copy ? cloneJson(stored) : stored;
  }
}

function inScope(scope: Scope, key: ObjectKey): boolean {
  return (
    key.resource === scope.resource &&
    (scope.cluster === undefined || key.cluster === scope.cluster) &&
    (scope.namespace === undefined || key.namespace === scope.namespace)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function describe(key: ObjectKey): string {
  return `${key.cluster ? `${key.cluster}:` : ''}${key.resource}/${key.namespace ? `${key.namespace}/` : ''}${key.name}`;
}
