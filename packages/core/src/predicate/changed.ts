/**
 * Predicates that let an update through only if a part of the object changed. Create, delete and generic events
 * always pass. They are usually ORed (`orPredicates(generationChangedPredicate(), labelChangedPredicate())`).
 */
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Predicate } from './types.js';

function onUpdate<T extends KubeObjectLike>(changed: (oldObj: T, newObj: T) => boolean): Predicate<T> {
  return {
    update: (e) => (e.objectOld && e.objectNew ? changed(e.objectOld, e.objectNew) : false),
  };
}

/** Absent and empty maps are the same labels (or annotations). */
function sameStringMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b!, k) && b![k] === a![k]);
}

/**
 * Passes updates whose `metadata.generation` changed: spec changes, not status or metadata. Do not use it for kinds
 * without a generation (such as ConfigMaps), whose updates it would all drop.
 */
export function generationChangedPredicate<T extends KubeObjectLike = KubeObject>(): Predicate<T> {
  return onUpdate<T>((o, n) => o.metadata?.generation !== n.metadata?.generation);
}

/** Passes updates whose labels changed. */
export function labelChangedPredicate<T extends KubeObjectLike = KubeObject>(): Predicate<T> {
  return onUpdate<T>((o, n) => !sameStringMap(o.metadata?.labels, n.metadata?.labels));
}

/** Passes updates whose annotations changed. */
export function annotationChangedPredicate<T extends KubeObjectLike = KubeObject>(): Predicate<T> {
  return onUpdate<T>((o, n) => !sameStringMap(o.metadata?.annotations, n.metadata?.annotations));
}

/** Passes updates whose resourceVersion changed, which drops the no-op updates of a periodic resync. */
export function resourceVersionChangedPredicate<T extends KubeObjectLike = KubeObject>(): Predicate<T> {
  return onUpdate<T>((o, n) => o.metadata?.resourceVersion !== n.metadata?.resourceVersion);
}
