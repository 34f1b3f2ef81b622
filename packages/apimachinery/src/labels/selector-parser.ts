/**
 * Parses the string form of a label selector with apimachinery's grammar (pkg/labels/selector.go):
 *
 *   selector    = [ requirement { "," requirement } ]
 *   requirement = [ "!" ] key
 *               | key ( "=" | "==" | "!=" ) [ value ]
 *               | key ( "in" | "notin" ) "(" [ value ] { "," [ value ] } ")"
 *               | key ( ">" | "<" ) integer
 *
 * Whitespace between tokens is ignored; `in` and `notin` are keywords.
 */
import { LabelSelectorError } from './errors.js';
import { newRequirement, type LabelOperator, type Requirement } from './requirement.js';

type TokenKind = 'identifier' | 'in' | 'notin' | '!' | '!=' | '=' | '==' | '>' | '<' | '(' | ')' | ',' | 'end';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly at: number;
}

const SPECIAL = new Set(['!', '=', '>', '<', '(', ')', ',']);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

function lex(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '!=' || two === '==') {
      tokens.push({ kind: two, text: two, at: i });
      i += 2;
      continue;
    }
    if (SPECIAL.has(c)) {
      tokens.push({ kind: c as TokenKind, text: c, at: i });
      i++;
      continue;
    }
    const start = i;
    while (i < source.length && !isSpace(source[i]!) && !SPECIAL.has(source[i]!)) i++;
    const text = source.slice(start, i);
    tokens.push({ kind: text === 'in' || text === 'notin' ? text : 'identifier', text, at: start });
  }
  tokens.push({ kind: 'end', text: 'end of string', at: source.length });
  return tokens;
}

class Parser {
  private pos = 0;
  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== 'end') this.pos++;
    return t;
  }

  private fail(t: Token, expected: string): never {
    throw new LabelSelectorError(this.source, `found '${t.text}', expected: ${expected}`, t.at);
  }

  parse(): Requirement[] {
    const out: Requirement[] = [];
    if (this.peek().kind === 'end') return out;
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'identifier' && t.kind !== '!') this.fail(t, "'!' or a key");
      out.push(this.requirement());
      const sep = this.next();
      if (sep.kind === 'end') return out;
      if (sep.kind !== ',') this.fail(sep, "',' or end of string");
    }
  }

  private requirement(): Requirement {
    const negated = this.peek().kind === '!';
    if (negated) this.next();
    const keyToken = this.next();
    if (keyToken.kind !== 'identifier') this.fail(keyToken, 'a key');
    const key = keyToken.text;
    const after = this.peek();
    if (negated || after.kind === ',' || after.kind === 'end') {
      return this.build(key, negated ? '!' : 'exists', [], keyToken);
    }
    const op = this.next();
    switch (op.kind) {
      case 'in':
      case 'notin':
        return this.build(key, op.kind, this.valueList(), keyToken);
      case '=':
      case '==':
        return this.build(key, '=', [this.exactValue()], keyToken);
      case '!=':
      case '>':
      case '<':
        return this.build(key, op.kind, [this.exactValue()], keyToken);
      case ',':
      case '!':
      case '(':
      case ')':
      case 'end':
      case 'identifier':
        return this.fail(op, "'in', 'notin', '=', '==', '!=', '>' or '<'");
    }
  }

  private build(key: string, op: LabelOperator, values: string[], at: Token): Requirement {
    try {
      return newRequirement(key, op, values, this.source);
    } catch (err) {
      if (err instanceof LabelSelectorError) throw new LabelSelectorError(this.source, err.reason, at.at);
      throw err;
    }
  }

  /** `key=` is allowed and means the empty value. */
  private exactValue(): string {
    const t = this.peek();
    if (t.kind === ',' || t.kind === 'end') return '';
    if (t.kind !== 'identifier') this.fail(t, 'a value');
    this.next();
    return t.text;
  }

  /** `(a,b)`; as in apimachinery, an empty slot (`()`, `(a,)`) is the empty value. */
  private valueList(): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(open, "'('");
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'identifier') {
        values.push(t.text);
        const sep = this.next();
        if (sep.kind === ')') return values;
        if (sep.kind !== ',') this.fail(sep, "',' or ')'");
      } else if (t.kind === ',') {
        values.push('');
      } else if (t.kind === ')') {
        values.push('');
        return values;
      } else {
        this.fail(t, "a value, ',' or ')'");
      }
    }
  }
}

/** The requirements of a selector string, or a {@link LabelSelectorError} naming the offending token. */
export function parseRequirements(source: string): Requirement[] {
  return new Parser(source, lex(source)).parse();
}
