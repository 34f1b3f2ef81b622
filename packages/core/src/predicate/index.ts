/**
 * `@multicluster-runtime/core/predicate`: predicates: filters on watch events, their combinators, and how a set of
 * them is evaluated. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { Predicate } from './types.js';
export {
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  resourceVersionChangedPredicate,
} from './changed.js';
export { andPredicates, notPredicate, orPredicates } from './combinators.js';
export type { EventsByType, PredicateEventType } from './evaluate.js';
export { evaluatePredicates } from './evaluate.js';
export { predicateFuncs } from './funcs.js';
export { labelSelectorPredicate } from './label-selector.js';
