/**
 * Label selector matching for cache lists.
 * TODO(H-queue): wire `parseLabelSelector` from ../labels/selector.ts once it lands; until then only the map form
 * (equality on every key) is supported and a string selector is refused with a clear error.
 */
import { InvalidListOptionsError } from './errors.js';

/** A predicate over an object's labels. */
export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

export function compileLabelSelector(selector: string | Record<string, string>): LabelMatcher {
  if (typeof selector === 'string') {
    throw new InvalidListOptionsError('labelSelector', 'string selectors are not supported by the cache yet; pass a map of equalities');
  }
  const required = Object.entries(selector);
  return (labels) => required.every(([key, value]) => labels?.[key] === value);
}
