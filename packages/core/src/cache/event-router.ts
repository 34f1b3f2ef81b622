/**
 * One shared informer seen by many members: EventRouter hands the informer's events to the handlers registered for
 * the key each object belongs to (a kcp logical cluster, a namespace), found by a key function; one map lookup per
 * event however many keys have handlers, so no handler is ever called for another key's objects. ScopedInformer is
 * the Informer one key sees. For providers whose members share one cache instead of running informers each.
 *
 * Given the name of an informer index whose values are the keys (the store's `namespace` index, a field index on the
 * logical cluster), a key's reads and a new handler's replay cost what that key holds; without one they scan and
 * sort every object of the informer, which a thousand members joining a host of 100,000 objects would do a thousand
 * times.
 */
import type { Logger } from '../log/logger.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import type { Informer, InformerStatus, Registration, ResourceEventHandler } from './types.js';

interface Routed<T extends KubeObject> {
  readonly handler: ResourceEventHandler<T>;
  removed: boolean;
  synced: boolean;
}

/** Routes a shared informer's events by key. One per informer: it registers a single handler on it. */
export class EventRouter<T extends KubeObject = KubeObject> {
  private readonly byKey = new Map<string, Set<Routed<T>>>();

  /**
   * @param keyOf the key an object belongs to.
   * @param logField the log field that names a key when a handler fails (e.g. `namespace`).
   * @param index an index of the informer whose values are exactly the keys `keyOf` gives.
   */
  constructor(
    readonly informer: Informer<T>,
    readonly keyOf: (obj: T) => string,
    private readonly log: Logger,
    private readonly logField = 'key',
    private readonly index?: string,
  ) {
    informer.addEventHandler({
      onAdd: (obj, initial) => this.each(obj, (h) => h.onAdd?.(obj, initial)),
      onUpdate: (oldObj, newObj) => this.each(newObj, (h) => h.onUpdate?.(oldObj, newObj)),
      onDelete: (obj, unknown) => this.each(obj, (h) => h.onDelete?.(obj, unknown)),
    });
  }

  /** Adds a handler for one key; it first gets onAdd for that key's objects already known. */
  add(key: string, handler: ResourceEventHandler<T>): Registration {
    const routed: Routed<T> = { handler, removed: false, synced: false };
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(routed);
    for (const obj of this.objectsOf(key)) this.call(routed, key, () => handler.onAdd?.(obj, true));
    routed.synced = true;
    return {
      remove: () => {
        routed.removed = true;
        const current = this.byKey.get(key);
        current?.delete(routed);
        if (current?.size === 0) this.byKey.delete(key);
      },
      hasSynced: () => routed.synced && this.informer.hasSynced(),
    };
  }

  /** The objects of `key`, in the informer's key order: from the index when there is one. */
  objectsOf(key: string): T[] {
    const { informer, index } = this;
    if (index !== undefined && informer.byIndex) return informer.byIndex(index, key);
    return informer.list().filter((o) => this.keyOf(o) === key);
  }

  private each(obj: T, fn: (h: ResourceEventHandler<T>) => void): void {
    const key = this.keyOf(obj);
    const set = this.byKey.get(key);
    if (!set) return;
    for (const routed of [...set]) if (!routed.removed) this.call(routed, key, () => fn(routed.handler));
  }

  /** One key's failing handler is logged and never keeps the event from the others. */
  private call(routed: Routed<T>, key: string, fn: () => unknown): void {
    try {
      const result = fn();
      if (result instanceof Promise)
        result.catch((err: unknown) => this.log.error('event handler rejected', err, { [this.logField]: key }));
    } catch (err) {
      this.log.error('event handler threw', err, { [this.logField]: key });
    }
  }
}

/** A shared informer as one key sees it: its handlers get only that key's events, and reads return only its objects. */
export class ScopedInformer<T extends KubeObject = KubeObject> implements Informer<T> {
  constructor(
    private readonly router: EventRouter<T>,
    readonly key: string,
  ) {}

  get kind(): ObjectKind {
    return this.router.informer.kind;
  }

  /** Resync periods are not supported per key: the shared informer serves every key. */
  addEventHandler(handler: ResourceEventHandler<T>): Registration {
    return this.router.add(this.key, handler);
  }

  hasSynced(): boolean {
    return this.router.informer.hasSynced();
  }

  status(): InformerStatus {
    return this.router.informer.status();
  }

  get(namespace: string, name: string): T | undefined {
    return this.list().find((o) => (o.metadata.namespace ?? '') === namespace && o.metadata.name === name);
  }

  list(): T[] {
    return this.router.objectsOf(this.key);
  }

  byIndex(name: string, value: string): T[] {
    const { informer, keyOf } = this.router;
    if (!informer.byIndex) throw new RangeError(`the informer of ${informer.kind.kind} keeps no indexes`);
    return informer.byIndex(name, value).filter((o) => keyOf(o) === this.key);
  }
}
