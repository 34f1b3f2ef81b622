/**
 * Label selectors: the filter Kubernetes lists, watches and caches apply to object labels. Built from the string form
 * (`app=web,tier in (a,b),!legacy`), a map of equalities, or a `metav1.LabelSelector` object.
 */
import { LabelSelectorError } from './errors.js';
import { newRequirement, requirementMatches, requirementToString, type LabelOperator, type Requirement } from './requirement.js';
import { parseRequirements } from './selector-parser.js';

/** A parsed selector: an AND of requirements. The empty selector matches everything. */
export interface LabelSelector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly Requirement[];
  /** True for the selector that matches everything. */
  readonly empty: boolean;
  /** Whether an object with these labels is selected (absent labels are an empty set). */
  matches(labels?: Readonly<Record<string, string>>): boolean;
  /** The canonical string form, accepted by the API server and by {@link parseLabelSelector}. */
  toString(): string;
}

/** `metav1.LabelSelector`. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly Requirement[];
  constructor(requirements: Requirement[]) {
    // Stable sort keeps duplicates of a key in the order given; sorting makes toString canonical.
    this.requirements = Object.freeze(requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels?: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => requirementMatches(r, labels));
  }
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
}

function describe(input: unknown): string {
  try {
    return typeof input === 'string' ? input : (JSON.stringify(input) ?? String(input));
  } catch {
    return String(input);
  }
}

function fromMap(map: Readonly<Record<string, unknown>>, source: string): Requirement[] {
  return Object.entries(map).map(([key, value]) => {
    if (typeof value !== 'string') throw new LabelSelectorError(source, `value of ${JSON.stringify(key)} must be a string`);
    return newRequirement(key, '=', [value], source);
  });
}

/**
 * Parses a selector string, or turns a map into equality requirements. Throws {@link LabelSelectorError} on bad
 * syntax, invalid keys or values.
 *
 * @example
 * parseLabelSelector('app=web,tier notin (cache)').matches({ app: 'web' }) // true
 */
export function parseLabelSelector(selector: string | Readonly<Record<string, string>>): LabelSelector {
  if (typeof selector === 'string') return new RequirementsSelector(parseRequirements(selector));
  if (selector === null || typeof selector !== 'object' || Array.isArray(selector)) {
    throw new LabelSelectorError(describe(selector), 'expected a string or a map of label values');
  }
  return new RequirementsSelector(fromMap(selector, describe(selector)));
}

const EXPRESSION_OPERATORS = new Map<unknown, LabelOperator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

/**
 * Converts a `metav1.LabelSelector` (`matchLabels` and `matchExpressions`, ANDed). `{}` selects everything, as in
 * Kubernetes. Operators are `In`, `NotIn`, `Exists` and `DoesNotExist`.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject): LabelSelector {
  const source = describe(selector);
  if (selector === null || typeof selector !== 'object' || Array.isArray(selector)) {
    throw new LabelSelectorError(source, 'expected an object with matchLabels and/or matchExpressions');
  }
  const requirements = selector.matchLabels === undefined ? [] : fromMap(selector.matchLabels, source);
  for (const [i, expr] of (selector.matchExpressions ?? []).entries()) {
    const operator = EXPRESSION_OPERATORS.get(expr?.operator);
    if (!operator) {
      throw new LabelSelectorError(
        source,
        `matchExpressions[${i}]: operator ${JSON.stringify(expr?.operator)} is not one of In, NotIn, Exists, DoesNotExist`,
      );
    }
    if (typeof expr.key !== 'string') throw new LabelSelectorError(source, `matchExpressions[${i}]: key must be a string`);
    const values = expr.values ?? [];
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      throw new LabelSelectorError(source, `matchExpressions[${i}]: values must be a list of strings`);
    }
    requirements.push(newRequirement(expr.key, operator, values, source));
  }
  return new RequirementsSelector(requirements);
}

/** The selector that matches every object. */
export const everythingSelector: LabelSelector = new RequirementsSelector([]);
