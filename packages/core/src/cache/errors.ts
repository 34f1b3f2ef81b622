/**
 * Errors of the informer cache. `retryable` says whether the same call can succeed later without a code change.
 */
import { kindKey } from '../object/gvk.js';
import type { ObjectKind } from '../object/types.js';

/** Base class of every error the cache throws (besides the API's NotFound for a missing object). */
export class CacheError extends Error {
  override readonly name: string = 'CacheError';
  readonly retryable: boolean = false;
}

/**
 * A read came before `start()`: informers only fill once the cache runs. Retry after starting it, or read from the
 * API server (a cluster's `apiReader`).
 */
export class CacheNotStartedError extends CacheError {
  override readonly name = 'CacheNotStartedError';
  override readonly retryable = true;
  constructor(readonly kind: ObjectKind) {
    super(
      `cache not started: cannot read ${kindKey(kind)} before Cache.start() ` +
        "(a cluster's client reads from its cache, which runs once the cluster or manager is started; read with cluster.apiReader before that)",
    );
  }
}

/** The cache was stopped (its start signal aborted); it serves no new informers or reads that need a sync. */
export class CacheStoppedError extends CacheError {
  override readonly name = 'CacheStoppedError';
  constructor(readonly kind: ObjectKind) {
    super(`cache stopped: no informer for ${kindKey(kind)}`);
  }
}

/**
 * The informer for `kind` has not finished its first list: the caller's signal aborted while waiting, or the server
 * refused the list (the cause: e.g. 403 Forbidden when the controller may not list and watch the kind). Retry later,
 * or read that kind from the API server (`client: { cache: { disableFor: [kind] } }` or `cluster.apiReader`).
 */
export class CacheNotSyncedError extends CacheError {
  override readonly name = 'CacheNotSyncedError';
  override readonly retryable = true;
  constructor(
    readonly kind: ObjectKind,
    options?: { cause?: unknown; refusedBy?: Error },
  ) {
    const refused = options?.refusedBy;
    const why = refused
      ? `the server refused to list it: ${refused.cause instanceof Error ? refused.cause.message : refused.message}`
      : 'the request was aborted while waiting';
    super(`informer for ${kindKey(kind)} has not synced yet (${why})`, { cause: refused ?? options?.cause });
  }
}

/** A field selector names a field the cache cannot answer: it needs `indexField` for that kind and field first. */
export class UnindexedFieldError extends CacheError {
  override readonly name = 'UnindexedFieldError';
  constructor(
    readonly kind: ObjectKind,
    readonly field: string,
  ) {
    super(
      `cannot select ${kindKey(kind)} by field ${JSON.stringify(field)} from the cache: no index; ` +
        `register one with indexField(kind, ${JSON.stringify(field)}, extract) (metadata.name and metadata.namespace need none)`,
    );
  }
}

const ALREADY_REGISTERED = 'an index for it is already registered';

/** `indexField` was called twice for the same kind and field, or for a field the cache answers by itself. */
export class IndexConflictError extends CacheError {
  /** The conflict for an index of this kind and field that exists already. */
  static alreadyRegistered(kind: ObjectKind, field: string): IndexConflictError {
    return new IndexConflictError(kind, field, ALREADY_REGISTERED);
  }

  override readonly name = 'IndexConflictError';
  constructor(
    readonly kind: ObjectKind,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`cannot index ${kindKey(kind)} by ${JSON.stringify(field)}: ${reason}`);
  }

  /** True when an index of this kind and field exists already (the other conflicts are mistakes in the call). */
  get alreadyRegistered(): boolean {
    return this.reason === ALREADY_REGISTERED;
  }
}

/** A list option the cache cannot honour (bad selector syntax, `continue`). */
export class InvalidListOptionsError extends CacheError {
  override readonly name = 'InvalidListOptionsError';
  constructor(
    readonly option: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`invalid ${option} for a cache list: ${reason}`, options);
  }
}
