/**
 * The RFC 6902 patch from the object the API server sent to the object a defaulter left, computed by
 * fast-json-patch's `compare` (pointer escaping, arrays and type changes handled by a library used by millions).
 * Both sides are first normalised through JSON, so `undefined` fields, Dates and class instances diff exactly as
 * the API server will see them.
 */
import fastJsonPatch from 'fast-json-patch';
import type { JsonPatchOperation } from './types.js';

/** The value as JSON would carry it. */
export function toJsonValue(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** Operations turning `before` into `after` (both JSON documents). */
export function jsonPatchBetween(before: unknown, after: unknown): JsonPatchOperation[] {
  return fastJsonPatch.compare(toJsonValue(before) as object, toJsonValue(after) as object) as JsonPatchOperation[];
}
