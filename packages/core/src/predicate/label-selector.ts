/** A predicate passing objects whose labels a selector matches. */
import {
  parseLabelSelector,
  labelSelectorFromObject,
  type LabelSelector,
  type LabelSelectorObject,
} from '@multicluster-runtime/apimachinery';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import { predicateFuncs } from './funcs.js';
import type { Predicate } from './types.js';

/**
 * Passes events whose object (the new object on updates) matches `selector`: a parsed selector, the string form, a
 * map of equalities, or a `metav1.LabelSelector`. Throws LabelSelectorError at once for a bad selector.
 */
export function labelSelectorPredicate<T extends KubeObjectLike = KubeObject>(
  selector: LabelSelector | LabelSelectorObject | string | Readonly<Record<string, string>>,
): Predicate<T> {
  const parsed = toSelector(selector);
  return predicateFuncs<T>((obj) => parsed.matches(obj.metadata?.labels));
}

function toSelector(selector: LabelSelector | LabelSelectorObject | string | Readonly<Record<string, string>>): LabelSelector {
  if (typeof selector === 'string') return parseLabelSelector(selector);
  if (selector !== null && typeof selector === 'object') {
    if (typeof (selector as LabelSelector).matches === 'function') return selector as LabelSelector;
    if ('matchLabels' in selector || 'matchExpressions' in selector) return labelSelectorFromObject(selector);
  }
  return parseLabelSelector(selector as Readonly<Record<string, string>>);
}
