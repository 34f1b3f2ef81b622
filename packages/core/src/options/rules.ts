/**
 * Rules for option values, for {@link checkOptions}: what a value must be, said in words ("a positive number of
 * milliseconds") so an error can name both the option and what it wanted. A handful of small builders instead of a
 * schema library: options objects are flat and few, and the messages matter more than the expressiveness.
 */

/** What one option's value must be. Absent (undefined) options never reach a rule: they take their default. */
export interface Rule {
  /** The expectation in words, completing "must be …". */
  readonly expect: string;
  /** Problems of `value` (empty when fine); `path` names it in messages. Nested rules report their own paths. */
  check(value: unknown, path: string): Problem[];
  /** For a nested options object: its keys' rules (to check unknown keys and to suggest where a key belongs). */
  readonly shape?: Shape;
}

/** One thing wrong with an options object. `unknownKey`: the key at `path` is not an option there. */
export interface Problem {
  readonly path: string;
  readonly message: string;
  readonly unknownKey?: boolean;
}

/** The rules of an options object: one per key of `T`, so a key added to the options type must get a rule. */
export type Shape<T = Record<string, unknown>> = { readonly [K in keyof T]-?: Rule };

/** A rule from a predicate. */
export function rule(expect: string, test: (value: unknown) => boolean): Rule {
  return { expect, check: (value, path) => (test(value) ? [] : [mustBe(path, expect, value)]) };
}

/** Any value: for an option whose value the owner checks itself (with a message of its own). */
export const anyValue = rule('any value', () => true);
/** Any string, empty included. */
export const anyString = rule('a string', (v) => typeof v === 'string');
/** A string that is not empty. */
export const nonEmptyString = rule('a non-empty string', (v) => typeof v === 'string' && v !== '');
/** true or false. */
export const boolean = rule('true or false', (v) => typeof v === 'boolean');
/** A function. */
export const func = rule('a function', (v) => typeof v === 'function');
/** A finite number of milliseconds greater than 0. */
export const positiveMs = rule('a positive number of milliseconds', (v) => typeof v === 'number' && Number.isFinite(v) && v > 0);
/** A finite number of milliseconds, 0 or more. */
export const nonNegativeMs = rule('a non-negative number of milliseconds', (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0);
/** A finite number greater than 0. */
export const positiveNumber = rule('a positive number', (v) => typeof v === 'number' && Number.isFinite(v) && v > 0);
/** An integer greater than 0. */
export const positiveInteger = rule('a positive integer', (v) => Number.isInteger(v) && (v as number) > 0);
/** An integer, 0 or more. */
export const nonNegativeInteger = rule('a non-negative integer', (v) => Number.isInteger(v) && (v as number) >= 0);

/** An object with these methods (a Logger, a MetricsRecorder, a Cluster, a KubeConfig …). */
export function withMethods(what: string, methods: readonly string[]): Rule {
  return rule(
    what,
    (v) => typeof v === 'object' && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
  );
}

/** One of a few strings; a near miss gets a "did you mean". */
export function oneOf(...values: readonly string[]): Rule {
  const expect = `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
  return {
    expect,
    check: (value, path) => {
      if (typeof value === 'string' && values.includes(value)) return [];
      const near = typeof value === 'string' ? closest(value, values) : undefined;
      const problem = mustBe(path, expect, value);
      return [near ? { path, message: `${problem.message} (did you mean ${JSON.stringify(near)}?)` } : problem];
    },
  };
}

/** An array whose every element passes `item`. */
export function arrayOf(item: Rule): Rule {
  return {
    expect: `a list whose items are each ${item.expect}`,
    check: (value, path) => {
      if (!Array.isArray(value)) return [mustBe(path, `a list whose items are each ${item.expect}`, value)];
      return value.flatMap((element, i) => item.check(element, `${path}[${i}]`));
    },
  };
}

/** A plain object mapping strings to values that pass `item` (labels, say). */
export function recordOf(item: Rule): Rule {
  return {
    expect: `an object whose values are each ${item.expect}`,
    check: (value, path) => {
      if (!isPlainObject(value)) return [mustBe(path, `an object whose values are each ${item.expect}`, value)];
      return Object.entries(value).flatMap(([k, v]) => item.check(v, `${path}.${k}`));
    },
  };
}

/** Passes if any of `rules` passes. */
export function either(...rules: readonly Rule[]): Rule {
  const expect = rules.map((r) => r.expect).join(' or ');
  return {
    expect,
    check: (value, path) => (rules.some((r) => r.check(value, path).length === 0) ? [] : [mustBe(path, expect, value)]),
  };
}

/** A nested options object with its own keys (checked for unknown keys too). */
export function nested<T>(shape: Shape<T>): Rule {
  const s = shape as Shape;
  return { expect: 'an options object', shape: s, check: (value, path) => checkShape(value, s, path) };
}

/** Problems of `value` as an options object of `shape`, naming each key from `path` (`''` at the top). */
export function checkShape(value: unknown, shape: Shape, path: string): Problem[] {
  if (!isPlainObject(value)) return [mustBe(path || 'the options', 'an options object', value)];
  const problems: Problem[] = [];
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const r = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!r) problems.push({ path: at, message: `unknown option ${at}`, unknownKey: true });
    else if (v !== undefined) problems.push(...r.check(v, at));
  }
  return problems;
}

function mustBe(path: string, expect: string, value: unknown): Problem {
  return { path, message: `${path} must be ${expect}, got ${describe(value)}` };
}

/** How a value reads in a message: JSON for plain data (short), its kind otherwise. Never a whole object's content. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'function':
      return 'a function';
    case 'object':
      return 'an object';
    case 'symbol':
    case 'undefined':
      break;
  }
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The candidate closest to `word` by edit distance, if it is close enough to be a typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = word.toLowerCase();
  for (const c of candidates) {
    const cl = c.toLowerCase();
    // A prefix of the right name ("insecure" for "insecureTransport") is as likely a slip as a typo.
    const d = Math.min(editDistance(lower, cl), lower.length >= 3 && (cl.startsWith(lower) || lower.startsWith(cl)) ? 1 : Infinity);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
