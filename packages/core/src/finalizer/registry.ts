/**
 * A finalizer registry, as controller-runtime's pkg/finalizer: register one cleanup function per finalizer name, and
 * call `finalize` at the start of every reconcile. On a live object it adds the missing finalizers; on an object being
 * deleted it runs the cleanup of each finalizer still present and removes those whose cleanup succeeded. It also
 * writes the change (a merge patch of `metadata.finalizers` guarded by the object's resourceVersion,
 * so another controller's finalizers are never dropped), and a removal that finds the object gone is done, not an
 * error: a second reconcile that read a stale copy from the cache must not fail.
 *
 * Cleanup functions must be idempotent: a stale read can run one again after it already succeeded.
 */
import { isNotFound } from '../client/errors.js';
import type { RequestOptions, Writer } from '../client/types.js';
import { objectKindOf } from '../object/gvk.js';
import { replaceContents } from '../object/in-place.js';
import type { KubeObjectLike } from '../object/types.js';
import { FinalizerAlreadyRegisteredError } from './errors.js';
import { checkFinalizerName, containsFinalizer } from './finalizers.js';

/** What a cleanup may ask for: leave the finalizer in place and be called again after `requeueAfter` ms. */
export interface FinalizerResult {
  requeueAfter?: number;
}

/** Cleans up for one finalizer. Throw to keep the finalizer (the reconcile fails and is retried). */
export type FinalizeFunc<T extends KubeObjectLike = KubeObjectLike> = (
  obj: T,
  options: RequestOptions,
) => Promise<FinalizerResult | void> | FinalizerResult | void;

/** The object form of a cleanup (controller-runtime's `Finalizer` interface). */
export interface Finalizer<T extends KubeObjectLike = KubeObjectLike> {
  finalize: FinalizeFunc<T>;
}

/**
 * What {@link Finalizers.finalize} did to an object: whether it wrote it, whether it is gone, and when to come back.
 */
export interface FinalizeResult {
  /** Finalizers were added or removed, and written. `obj` now holds the stored object. */
  updated: boolean;
  /** The object no longer exists (its last finalizer was removed, or it was already gone). */
  gone: boolean;
  /** The shortest `requeueAfter` a cleanup asked for; its finalizer stays. Return it from the reconcile. */
  requeueAfter?: number;
}

/**
 * Cleanups keyed by finalizer name (controller-runtime's `finalizer.Finalizers`): `finalize(client, obj)` adds
 * the registered finalizers to a live object and, once it is being deleted, runs each cleanup and removes its
 * finalizer when it succeeded.
 */
export class Finalizers<T extends KubeObjectLike = KubeObjectLike> {
  private readonly registered = new Map<string, FinalizeFunc<T>>();

  /** Registers the cleanup for `finalizer` (a qualified name such as `example.com/cleanup`). */
  register(finalizer: string, cleanup: Finalizer<T> | FinalizeFunc<T>): this {
    checkFinalizerName(finalizer);
    if (this.registered.has(finalizer)) throw new FinalizerAlreadyRegisteredError(finalizer);
    const fn = typeof cleanup === 'function' ? cleanup : cleanup?.finalize?.bind(cleanup);
    if (typeof fn !== 'function') throw new TypeError(`finalizer ${JSON.stringify(finalizer)}: expected a function or { finalize }`);
    this.registered.set(finalizer, fn);
    return this;
  }

  /**
   * Adds missing finalizers to a live object, or runs the cleanups of a deleting one and removes the finalizers of
   * those that succeeded; writes the change with `client` and updates `obj` in place. If cleanups threw, the
   * finalizers of the others are still removed and written, then the error is thrown (several: an AggregateError).
   */
  async finalize(client: Pick<Writer, 'patch'>, obj: T, options: RequestOptions = {}): Promise<FinalizeResult> {
    const before = obj.metadata?.finalizers ?? [];
    let after = [...before];
    const errors: unknown[] = [];
    let requeueAfter: number | undefined;

    if (!obj.metadata?.deletionTimestamp) {
      for (const name of this.registered.keys()) if (!after.includes(name)) after.push(name);
    } else {
      for (const [name, cleanup] of this.registered) {
        if (!containsFinalizer(obj, name)) continue;
        options.signal?.throwIfAborted();
        try {
          const result = await cleanup(obj, options);
          if (result?.requeueAfter !== undefined) {
            requeueAfter = Math.min(requeueAfter ?? Infinity, result.requeueAfter);
            continue;
          }
          after = after.filter((f) => f !== name);
        } catch (err) {
          errors.push(err);
        }
      }
    }

    let updated = false;
    let gone = false;
    if (after.length !== before.length) {
      ({ updated, gone } = await writeFinalizers(client, obj, after, options));
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} finalizers failed: ${errors.map(String).join('; ')}`);
    return { updated, gone, ...(requeueAfter !== undefined ? { requeueAfter } : {}) };
  }
}

/** Writes `finalizers` as a merge patch locked on the object's resourceVersion; NotFound means the object is gone. */
async function writeFinalizers<T extends KubeObjectLike>(
  client: Pick<Writer, 'patch'>,
  obj: T,
  finalizers: string[],
  options: RequestOptions,
): Promise<{ updated: boolean; gone: boolean }> {
  const metadata = obj.metadata ?? {};
  const body = { metadata: { finalizers, ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}) } };
  try {
    const stored = await client.patch(
      objectKindOf(obj),
      { namespace: metadata.namespace, name: metadata.name ?? '' },
      { type: 'merge', body },
      options,
    );
    replaceContents(obj, stored);
    // Removing the last finalizer of a deleting object deletes it; the answer is its last state.
    return { updated: true, gone: Boolean(metadata.deletionTimestamp) && finalizers.length === 0 };
  } catch (err) {
    if (!isNotFound(err)) throw err;
    (obj.metadata ??= {}).finalizers = finalizers;
    return { updated: false, gone: true };
  }
}
