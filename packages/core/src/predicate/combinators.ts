/**
 * Combining predicates. A missing callback counts as "pass", as everywhere, so `notPredicate` of a predicate without an
 * `update` callback drops every update.
 */
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Predicate } from './types.js';

type EventType = keyof Predicate;
const TYPES: readonly EventType[] = ['create', 'update', 'delete', 'generic'];

function test<T extends KubeObjectLike>(p: Predicate<T>, type: EventType, event: unknown): boolean {
  const fn = (p as { [K in EventType]?: (this: Predicate<T>, e: unknown) => boolean })[type];
  return fn ? fn.call(p, event) : true;
}

function combine<T extends KubeObjectLike>(decide: (type: EventType, event: unknown) => boolean): Predicate<T> {
  const out: Record<string, (e: unknown) => boolean> = {};
  for (const type of TYPES) out[type] = (event) => decide(type, event);
  return out;
}

/** Passes an event only if every predicate does (and stops at the first that does not). `andPredicates()` passes all. */
export function andPredicates<T extends KubeObjectLike = KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine<T>((type, event) => predicates.every((p) => test(p, type, event)));
}

/** Passes an event if any predicate does. `orPredicates()` passes none. */
export function orPredicates<T extends KubeObjectLike = KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine<T>((type, event) => predicates.some((p) => test(p, type, event)));
}

/** Passes exactly the events `predicate` drops. */
export function notPredicate<T extends KubeObjectLike = KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return combine<T>((type, event) => !test(predicate, type, event));
}
