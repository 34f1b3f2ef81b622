/**
 * The field selector syntax (apimachinery pkg/fields/selector.go): terms `field=value`, `field==value` or
 * `field!=value`, ANDed with commas; `\` escapes `,`, `=`, `!` and `\`. Values are taken exactly; field names are
 * trimmed (no field has spaces, and `a=1, b=2` is how people write it). Which fields a resource supports is the
 * server's business (the in-memory server's, a cache's indexes); this only reads the text.
 */

export interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

/** Field selector text that does not follow the grammar. Not retryable: the same text fails the same way. */
export class FieldSelectorError extends Error {
  override readonly name = 'FieldSelectorError';
  readonly retryable = false;
  constructor(
    readonly selector: string,
    readonly term: string,
  ) {
    super(`invalid selector: '${selector}'; can't understand '${term}'`);
  }
}

/** Parses field selector text into requirements, as the API server reads it; empty text selects everything. */
export function parseFieldSelector(text: string): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  for (const term of splitUnescaped(text, ',')) {
    if (term === '') continue;
    const found = findOperator(term);
    const field = found ? unescapeValue(term.slice(0, found.index)).trim() : '';
    if (!found || field === '') throw new FieldSelectorError(text, term);
    requirements.push({
      field,
      op: found.op === '!=' ? '!=' : '=',
      value: unescapeValue(term.slice(found.index + found.op.length)),
    });
  }
  return requirements;
}

/** The first unescaped operator of a term: `!=`, then `==`, then `=`, at the earliest position. */
function findOperator(term: string): { index: number; op: '!=' | '==' | '=' } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    if (term.startsWith('!=', i)) return { index: i, op: '!=' };
    if (term.startsWith('==', i)) return { index: i, op: '==' };
    if (term[i] === '=') return { index: i, op: '=' };
  }
  return undefined;
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text[i + 1]!;
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

function unescapeValue(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}
