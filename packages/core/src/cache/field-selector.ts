/**
 * Field selectors for cache lists: the API's string syntax (`a=b,c!=d`, with `\,` `\=` `\\` escapes, read by
 * `@multicluster-runtime/apimachinery` as the API server reads it) or a map of equalities, parsed into requirements
 * the cache answers from its indexes.
 */
import {
  FieldSelectorError,
  parseFieldSelector as parseFieldSelectorText,
  type FieldRequirement,
} from '@multicluster-runtime/apimachinery';
import { InvalidListOptionsError } from './errors.js';

export type { FieldRequirement } from '@multicluster-runtime/apimachinery';

/** Parses a field selector; throws {@link InvalidListOptionsError} naming the bad term. */
export function parseFieldSelector(selector: string | Record<string, string>): FieldRequirement[] {
  if (typeof selector !== 'string') {
    return Object.entries(selector).map(([field, value]) => {
      if (field === '' || typeof value !== 'string') {
        throw new InvalidListOptionsError('fieldSelector', `bad entry ${JSON.stringify(field)}: ${JSON.stringify(value)}`);
      }
      return { field, op: '=', value };
    });
  }
  try {
    return parseFieldSelectorText(selector);
  } catch (err) {
    if (err instanceof FieldSelectorError) {
      throw new InvalidListOptionsError('fieldSelector', `${JSON.stringify(err.term)} is not field=value or field!=value`);
    }
    throw err;
  }
}
