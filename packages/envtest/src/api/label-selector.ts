/**
 * Label selector parsing and matching with apimachinery's grammar (pkg/labels/selector.go):
 * `req{,req}` where req is `[!]key`, `key (=|==|!=) value`, `key (in|notin) (v1,v2)` or `key (>|<) int`.
 * `!=` and `notin` also match objects without the key.
 */
import { isDns1123Subdomain } from './validation.js';

type Op = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | '>' | '<';

interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

export class SelectorParseError extends Error {
  override name = 'SelectorParseError';
}

export class LabelSelector {
  private constructor(private readonly requirements: readonly Requirement[]) {}

  static readonly everything = new LabelSelector([]);

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  static parse(text: string): LabelSelector {
    return new LabelSelector(parse(text));
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => {
      const has = Object.prototype.hasOwnProperty.call(l, r.key);
      const v = has ? l[r.key] : undefined;
      switch (r.op) {
        case 'exists':
          return has;
        case '!':
          return !has;
        case '=':
          return has && v === r.values[0];
        case '!=':
          return !has || v !== r.values[0];
        case 'in':
          return has && r.values.includes(v!);
        case 'notin':
          return !has || !r.values.includes(v!);
        case '>':
        case '<': {
          if (!has || !/^-?\d+$/.test(v!)) return false;
          const n = Number(v);
          const bound = Number(r.values[0]);
          return r.op === '>' ? n > bound : n < bound;
        }
      }
    });
  }
}

const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

type Token = { kind: 'id' | 'op' | '(' | ')' | ',' | '!'; text: string };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ kind: c, text: c });
      i++;
    } else if (c === '!' && text[i + 1] === '=') {
      out.push({ kind: 'op', text: '!=' });
      i += 2;
    } else if (c === '!') {
      out.push({ kind: '!', text: '!' });
      i++;
    } else if (c === '=') {
      const two = text[i + 1] === '=';
      out.push({ kind: 'op', text: two ? '==' : '=' });
      i += two ? 2 : 1;
    } else if (c === '>' || c === '<') {
      out.push({ kind: 'op', text: c });
      i++;
    } else {
      let j = i;
      while (j < text.length && !' \t(),!=<>'.includes(text[j]!)) j++;
      out.push({ kind: 'id', text: text.slice(i, j) });
      i = j;
    }
  }
  return out;
}

function parse(text: string): Requirement[] {
  const tokens = tokenize(text);
  const reqs: Requirement[] = [];
  let p = 0;
  const peek = (): Token | undefined => tokens[p];
  const fail = (msg: string): never => {
    throw new SelectorParseError(`unable to parse requirement: ${msg}`);
  };
  if (tokens.length === 0) return reqs;
  for (;;) {
    let negate = false;
    if (peek()?.kind === '!') {
      negate = true;
      p++;
    }
    const keyTok = tokens[p++];
    if (!keyTok || keyTok.kind !== 'id') fail(`found '${keyTok?.text ?? ''}', expected: identifier`);
    const key = keyTok!.text;
    validateKey(key, fail);
    const next = peek();
    if (negate || !next || next.kind === ',') {
      reqs.push({ key, op: negate ? '!' : 'exists', values: [] });
    } else if (next.kind === 'op') {
      p++;
      const op: Op = next.text === '==' ? '=' : (next.text as Op);
      const valTok = peek();
      let value = '';
      if (valTok?.kind === 'id') {
        value = valTok.text;
        p++;
      }
      if ((op === '>' || op === '<') && !/^-?\d+$/.test(value)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      validateValue(value, fail);
      reqs.push({ key, op, values: [value] });
    } else if (next.kind === 'id' && (next.text === 'in' || next.text === 'notin')) {
      p++;
      if (peek()?.kind !== '(') fail(`found '${peek()?.text ?? ''}', expected: '('`);
      p++;
      const values: string[] = [];
      for (;;) {
        const t = peek();
        if (t?.kind === 'id') {
          validateValue(t.text, fail);
          values.push(t.text);
          p++;
        } else values.push('');
        const sep = tokens[p++];
        if (sep?.kind === ')') break;
        if (sep?.kind !== ',') fail(`found '${sep?.text ?? ''}', expected: ',' or ')'`);
      }
      reqs.push({ key, op: next.text, values });
    } else {
      fail(`found '${next.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const sep = tokens[p++];
    if (!sep) break;
    if (sep.kind !== ',') fail(`found '${sep.text}', expected: ','`);
  }
  return reqs;
}

function validateKey(key: string, fail: (m: string) => never): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if ((prefix !== undefined && !isDns1123Subdomain(prefix)) || name.length > 63 || !NAME.test(name)) fail(`invalid label key "${key}"`);
}

function validateValue(value: string, fail: (m: string) => never): void {
  if (value.length > 63 || !VALUE.test(value)) fail(`invalid label value: "${value}"`);
}
