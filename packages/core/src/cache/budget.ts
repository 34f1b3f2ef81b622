/**
 * Per-cluster cache limits. Members are often other people's clusters, and a member's API server decides how many
 * objects, and how large, the process keeps for it; limits bound that per cluster. Every store of a cluster's
 * cache reports what it holds (stored and buffered during a relist) to one CacheBudget; the first time a limit is
 * passed the budget reports the breach once, and the cache stops with CacheLimitExceededError, which fails that
 * cluster only (a provider reports it and retries it with backoff). Sizes are the objects' JSON length, measured
 * only when `maxBytes` is set.
 */
import type { ClusterName } from '../fleet/cluster-name.js';
import type { KubeObject } from '../object/types.js';
import { CacheError } from './errors.js';

/** Bounds on what one cluster's cache may hold. Both optional; no limit by default. */
export interface CacheLimits {
  /** Most objects, over every kind, stored or buffered during a relist. */
  maxObjects?: number;
  /** Most bytes of objects (their JSON length), over every kind, stored or buffered during a relist. */
  maxBytes?: number;
}

/** Which limit was passed. */
export type CacheLimit = 'objects' | 'bytes';

/** A cluster's cache passed one of its limits; the cache stopped. Retryable: the cluster may shrink. */
export class CacheLimitExceededError extends CacheError {
  override readonly name = 'CacheLimitExceededError';
  override readonly retryable = true;
  constructor(
    readonly cluster: ClusterName,
    readonly limit: CacheLimit,
    readonly held: number,
    readonly max: number,
  ) {
    super(
      `cluster ${JSON.stringify(cluster)} holds more than ${max} ${limit === 'objects' ? 'objects' : 'bytes of objects'} in its cache (limit ${limit === 'objects' ? 'maxObjects' : 'maxBytes'}; ${held} now)`,
    );
  }
}

/** What a store reports about what it holds. */
export interface StoreAccounting {
  /** The change in objects held (stored and buffered) and, when `sizeOf` is given, in their size. */
  change(objects: number, bytes: number): void;
  /** The size counted for one object; absent when only objects are counted. */
  readonly sizeOf?: (obj: KubeObject) => number;
}

/** The limits of one cluster's cache, fed by every store of it. */
export class CacheBudget implements StoreAccounting {
  readonly sizeOf?: (obj: KubeObject) => number;
  private objects = 0;
  private bytes = 0;
  private breach: CacheLimitExceededError | undefined;

  constructor(
    private readonly limits: CacheLimits,
    private readonly cluster: ClusterName,
    private readonly onBreach: (err: CacheLimitExceededError) => void,
  ) {
    for (const key of ['maxObjects', 'maxBytes'] as const) {
      const max = limits[key];
      if (max !== undefined && !(Number.isSafeInteger(max) && max > 0)) {
        throw new RangeError(`cacheLimits.${key} must be a positive integer, got ${JSON.stringify(max)}`);
      }
    }
    if (limits.maxBytes !== undefined) this.sizeOf = (obj) => JSON.stringify(obj).length;
  }

  /** The first breach, if a limit was passed. */
  get exceeded(): CacheLimitExceededError | undefined {
    return this.breach;
  }

  /** What the cache holds now. */
  held(): { objects: number; bytes: number } {
    return { objects: this.objects, bytes: this.bytes };
  }

  change(objects: number, bytes: number): void {
    this.objects += objects;
    this.bytes = Math.max(0, this.bytes + bytes);
    if (this.breach) return;
    const { maxObjects, maxBytes } = this.limits;
    if (maxObjects !== undefined && this.objects > maxObjects) this.breached('objects', this.objects, maxObjects);
    else if (maxBytes !== undefined && this.bytes > maxBytes) this.breached('bytes', this.bytes, maxBytes);
  }

  private breached(limit: CacheLimit, held: number, max: number): void {
    this.breach = new CacheLimitExceededError(this.cluster, limit, held, max);
    this.onBreach(this.breach);
  }
}
