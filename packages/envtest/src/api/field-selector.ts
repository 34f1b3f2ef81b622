/**
 * Field selectors (pkg/fields/selector.go): `field(=|==|!=)value`, comma-ANDed, with `\` escapes. Every resource
 * supports metadata.name and metadata.namespace; anything else is "field label not supported".
 */
import { SelectorParseError } from './label-selector.js';

interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

const SUPPORTED = new Set(['metadata.name', 'metadata.namespace']);

export class FieldSelector {
  private constructor(readonly requirements: readonly FieldRequirement[]) {}

  static readonly everything = new FieldSelector([]);

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  static parse(text: string): FieldSelector {
    const reqs: FieldRequirement[] = [];
    for (const part of splitUnescaped(text, ',')) {
      if (part.trim() === '') continue;
      const m = findOperator(part);
      if (!m) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`);
      const field = part.slice(0, m.index).trim();
      const value = unescape(part.slice(m.index + m.op.length));
      if (!SUPPORTED.has(field)) throw new FieldLabelNotSupportedError(field);
      reqs.push({ field, op: m.op === '!=' ? '!=' : '=', value });
    }
    return new FieldSelector(reqs);
  }

  /** The value an `=` requirement pins `field` to, if any (used to check a watch's name against the URL). */
  exactValue(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.op === '=')?.value;
  }

  matches(obj: { metadata: { name: string; namespace?: string } }): boolean {
    return this.requirements.every((r) => {
      const actual = r.field === 'metadata.name' ? obj.metadata.name : (obj.metadata.namespace ?? '');
      return r.op === '=' ? actual === r.value : actual !== r.value;
    });
  }

  with(field: string, value: string): FieldSelector {
    return new FieldSelector([...this.requirements, { field, op: '=', value }]);
  }
}

export class FieldLabelNotSupportedError extends SelectorParseError {
  constructor(readonly field: string) {
    super(`field label not supported: ${field}`);
  }
}

function findOperator(part: string): { index: number; op: string } | undefined {
  for (let i = 0; i < part.length; i++) {
    if (part[i] === '\\') {
      i++;
      continue;
    }
    if (part.startsWith('!=', i)) return { index: i, op: '!=' };
    if (part.startsWith('==', i)) return { index: i, op: '==' };
    if (part[i] === '=') return { index: i, op: '=' };
  }
  return undefined;
}

function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      cur += s[i]! + s[i + 1]!;
      i++;
    } else if (s[i] === sep) {
      out.push(cur);
      cur = '';
    } else cur += s[i]!;
  }
  out.push(cur);
  return out;
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}
