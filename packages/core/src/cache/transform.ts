/**
 * What the store keeps of each object. Objects are stored as the raw JSON the server sent, trimmed by a transform
 * and deep-frozen, so every reader and handler shares one copy that none of them can corrupt.
 */
import type { KubeObject } from '../object/types.js';

/** Turns a received object into what the store keeps. Must not mutate its input. */
export type TransformFunc = (obj: KubeObject) => KubeObject;

/** Drops `metadata.managedFields`, which is often most of an object's size and rarely read by controllers. */
export const stripManagedFields: TransformFunc = (obj) => {
  if (obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
};

/**
 * Keeps only apiVersion, kind and metadata (less `managedFields`): the PartialObjectMetadata shape, for kinds that
 * are watched only to react to their existence, labels or owners.
 */
export const metadataOnly: TransformFunc = (obj) => {
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  const partial: KubeObject = { metadata };
  if (obj.apiVersion !== undefined) partial.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) partial.kind = obj.kind;
  return partial;
};

/** Freezes `value` and everything reachable from it. Returns it for chaining. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // Runs on every object the informers receive: no key array per object, and primitives (most values) are skipped
  // without a call.
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) if (typeof child === 'object' && child !== null) deepFreeze(child);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const child = record[key];
    if (typeof child === 'object' && child !== null) deepFreeze(child);
  }
  return value;
}
