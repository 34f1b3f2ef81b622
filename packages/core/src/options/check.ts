/**
 * Options are checked when they are given: a constructor calls {@link checkOptions} with the rules of its options
 * and an error factory of its own module, and gets every problem at once — an unknown key (with where it belongs
 * when it is a known key of a nested object, or the key it is a typo of), a value of the wrong type, an impossible
 * combination the caller adds. Checked from JavaScript too, where the types do not guard anything.
 */
import { checkShape, closest, type Problem, type Shape } from './rules.js';

/** A check across options (e.g. one duration shorter than another); returns the problem, or undefined when fine. */
export type Combination<T> = (options: T) => string | undefined;

/**
 * Throws `fail(message)` when `options` has problems; `options` undefined is fine (every option takes its default).
 * `prefix` names the options in messages (`'options.'` gives `options.namespace`; `''` gives bare keys).
 * Combinations run only when every value has the right type.
 */
export function checkOptions<T>(
  options: T | undefined,
  shape: Shape<T>,
  fail: (message: string) => Error,
  settings: { prefix?: string; combinations?: readonly Combination<T>[] } = {},
): void {
  if (options === undefined) return;
  const root = shape as Shape;
  const prefix = settings.prefix ?? '';
  const problems = checkShape(options, root, prefix.replace(/\.$/, ''));
  const messages = problems.map((p) => (p.unknownKey ? p.message + hint(p, root, prefix) : p.message));
  if (messages.length === 0) {
    for (const combination of settings.combinations ?? []) {
      const problem = combination(options);
      if (problem !== undefined) messages.push(problem);
    }
  }
  if (messages.length === 0) return;
  throw fail(messages.length === 1 ? messages[0]! : `${messages.length} problems: ${messages.join('; ')}`);
}

/** " (did you mean …?)" for an unknown key: the same key elsewhere in the options, else a near-miss beside it. */
function hint(problem: Problem, root: Shape, prefix: string): string {
  const relative = prefix && problem.path.startsWith(prefix) ? problem.path.slice(prefix.length) : problem.path;
  const segments = relative.split('.');
  const key = segments[segments.length - 1]!;
  const elsewhere = pathsOf(root)
    .filter((path) => path.split('.').pop()!.toLowerCase() === key.toLowerCase() && path !== relative)
    .map((path) => prefix + path);
  if (elsewhere.length > 0) return ` (did you mean ${elsewhere.join(' or ')}?)`;
  const parent = shapeAt(root, segments.slice(0, -1));
  const near = parent ? closest(key, Object.keys(parent)) : undefined;
  return near ? ` (did you mean ${[prefix.replace(/\.$/, ''), ...segments.slice(0, -1), near].filter(Boolean).join('.')}?)` : '';
}

/** Every option path of the shape, nested ones included (`sharding.timings.fenceRetryPeriodMs`). */
function pathsOf(shape: Shape, at = ''): string[] {
  return Object.entries(shape).flatMap(([key, rule]) => {
    const path = at ? `${at}.${key}` : key;
    return rule.shape ? [path, ...pathsOf(rule.shape, path)] : [path];
  });
}

function shapeAt(root: Shape, segments: readonly string[]): Shape | undefined {
  let shape: Shape | undefined = root;
  for (const s of segments) shape = shape && Object.hasOwn(shape, s) ? shape[s]?.shape : undefined;
  return shape;
}
