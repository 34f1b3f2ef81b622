/**
 * JSON merge patches (RFC 7386) computed from two versions of an object, as controller-runtime's `client.MergeFrom`:
 * changed and added fields are set, removed fields are `null`, arrays are replaced whole. With `optimisticLock` the
 * patch carries the original's resourceVersion, which the server treats as a precondition (409 Conflict when the
 * object changed since it was read).
 */
import { jsonEqual } from '@multicluster-runtime/apimachinery';
import { isJsonObject, type JsonObject } from '../object/json.js';
import type { KubeObjectLike } from '../object/types.js';
import type { Patch } from './types.js';

/**
 * Options of {@link mergeFrom}: optimistic locking on the original's resourceVersion.
 */
export interface MergeFromOptions {
  /** Fail with Conflict if the object changed since `original` was read. Default false. */
  optimisticLock?: boolean;
}

/** The merge patch that turns `original` into `modified`; `{}` when nothing changed. */
export function createMergePatch(original: unknown, modified: unknown): JsonObject {
  const patch = diff(isJsonObject(original) ? original : {}, isJsonObject(modified) ? modified : {});
  return patch;
}

/** A merge `Patch` from `original` to `modified`, for `client.patch(kind, key, mergeFrom(before, obj))`. */
export function mergeFrom<T extends KubeObjectLike>(original: T, modified: T, options: MergeFromOptions = {}): Patch {
  const body = createMergePatch(original, modified);
  if (options.optimisticLock) {
    const resourceVersion = original.metadata?.resourceVersion;
    if (!resourceVersion) throw new TypeError('mergeFrom with optimisticLock needs the original object to have metadata.resourceVersion');
    body['metadata'] = { ...(isJsonObject(body['metadata']) ? body['metadata'] : {}), resourceVersion };
  }
  return { type: 'merge', body };
}

function diff(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, bv] of Object.entries(b)) {
    if (bv === undefined) continue;
    const av = a[k];
    if (av === undefined) out[k] = withoutUndefined(bv);
    else if (jsonEqual(av, bv)) continue;
    else if (isJsonObject(av) && isJsonObject(bv)) out[k] = diff(av, bv);
    else out[k] = withoutUndefined(bv);
  }
  for (const [k, av] of Object.entries(a)) {
    if (av !== undefined && b[k] === undefined) out[k] = null;
  }
  return out;
}

/** A value as JSON would carry it: undefined properties dropped, so the patch says exactly what is sent. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
  return out;
}
