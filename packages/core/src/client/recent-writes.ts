/**
 * Read-your-own-writes for a cache-backed client. An informer learns of a write only when its watch event arrives, so
 * a reconcile that runs right after another one's write (the usual case: the write itself queues the next reconcile)
 * reads the state from before it: createOrUpdate then meets AlreadyExists, an update a Conflict, and a finalizer
 * removal a NotFound, each logged as a failed reconcile and retried.
 *
 * The client records the resourceVersion of every write it makes (or that it deleted the object). A cached `get` of
 * such an object is served from the cache once the cache holds that resourceVersion (or, for a deletion, no longer
 * holds the object); until then it is read from the API server. Records end when the cache catches up, after `ttlMs`,
 * or when `capacity` newer writes push them out, so a cache that never catches up costs live reads of the objects
 * this process wrote in the last `ttlMs`, never more. Lists are not covered: they are served from the cache as is.
 */
import { kindKey } from '../object/gvk.js';
import type { ObjectKey, ObjectKind } from '../object/types.js';

interface Written {
  /** The resourceVersion the write returned; undefined for a deletion. */
  readonly resourceVersion: string | undefined;
  readonly at: number;
}

/** What the cache must show before it serves a read of the object again. */
export type Expectation = { deleted: true } | { deleted: false; resourceVersion: string };

/** Options of RecentWrites: how many writes it remembers, for how long, and the clock. */
export interface RecentWritesOptions {
  /** How long a write is remembered at most. Default 30,000 ms. */
  ttlMs?: number;
  /** How many writes are remembered at most; the oldest go first. Default 10,000. */
  capacity?: number;
  /** The clock, in epoch milliseconds (tests pass their own). Default Date.now. */
  now?: () => number;
}

export class RecentWrites {
  private readonly writes = new Map<string, Written>();
  private readonly ttlMs: number;
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(options: RecentWritesOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.capacity = options.capacity ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Records a write that returned `resourceVersion` (undefined: the object was deleted). */
  record(kind: ObjectKind, key: ObjectKey, resourceVersion: string | undefined): void {
    const id = writeKey(kind, key);
    this.writes.delete(id); // re-inserted last, so Map order stays oldest-first
    this.writes.set(id, { resourceVersion, at: this.now() });
    for (const oldest of this.writes.keys()) {
      if (this.writes.size <= this.capacity) break;
      this.writes.delete(oldest);
    }
  }

  /** What the cache must show before serving `key`, or undefined if it may serve it now. */
  expectation(kind: ObjectKind, key: ObjectKey): Expectation | undefined {
    const id = writeKey(kind, key);
    const written = this.writes.get(id);
    if (!written) return undefined;
    if (this.now() - written.at > this.ttlMs) {
      this.writes.delete(id);
      return undefined;
    }
    return written.resourceVersion === undefined ? { deleted: true } : { deleted: false, resourceVersion: written.resourceVersion };
  }

  /** The cache showed what was expected: it serves this object again. */
  caughtUp(kind: ObjectKind, key: ObjectKey): void {
    this.writes.delete(writeKey(kind, key));
  }

  get size(): number {
    return this.writes.size;
  }
}

function writeKey(kind: ObjectKind, key: ObjectKey): string {
  return `${kindKey(kind)}\n${key.namespace ?? ''}\n${key.name}`;
}
