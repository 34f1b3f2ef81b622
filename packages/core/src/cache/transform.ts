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
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
