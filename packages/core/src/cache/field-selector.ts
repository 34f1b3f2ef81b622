/**
 * Field selectors for cache lists: the API's string syntax (`a=b,c!=d`, with `\,` `\=` `\\` escapes) or a map of
 * equalities, parsed into requirements the cache answers from its indexes.
 */
import { InvalidListOptionsError } from './errors.js';

export interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

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
  const requirements: FieldRequirement[] = [];
  for (const term of splitUnescaped(selector, ',')) {
    if (term.trim() !== '') requirements.push(parseTerm(term));
  }
  return requirements;
}

function parseTerm(term: string): FieldRequirement {
  for (let i = 0; i < term.length; i++) {
    const ch = term[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    const negated = ch === '!' && term[i + 1] === '=';
    if (!negated && ch !== '=') continue;
    const field = unescape(term.slice(0, i).trim());
    if (field === '') break;
    const valueStart = negated || term[i + 1] === '=' ? i + 2 : i + 1;
    return { field, op: negated ? '!=' : '=', value: unescape(term.slice(valueStart).trim()) };
  }
  throw new InvalidListOptionsError('fieldSelector', `${JSON.stringify(term)} is not field=value or field!=value`);
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] as string);
      i++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}
