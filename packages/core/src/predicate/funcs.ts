/** Predicates built from one function over the event's object. */
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Predicate } from './types.js';

/**
 * Applies `fn` to the object of create, delete and generic events and to the new object of update events
 * (controller-runtime's NewPredicateFuncs).
 */
export function predicateFuncs<T extends KubeObjectLike = KubeObject>(fn: (obj: T) => boolean): Predicate<T> {
  return {
    create: (e) => fn(e.object),
    update: (e) => fn(e.objectNew),
    delete: (e) => fn(e.object),
    generic: (e) => fn(e.object),
  };
}
