/**
 * One label requirement (`key op values`) with apimachinery's validation and matching rules. Selectors are ANDs of
 * requirements; this file knows what a single one means.
 */
import { labelValueProblem, qualifiedNameProblem } from '../names.js';
import { LabelSelectorError } from './errors.js';

/**
 * The operator of one label requirement, as the selector grammar writes it.
 */
export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | '>' | '<';

/** A validated requirement. `values` is sorted and deduplicated; it is empty for `exists` and `!`. */
export interface Requirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

const INTEGER = /^[+-]?[0-9]+$/;

/**
 * Builds a requirement after checking it as apimachinery's `NewRequirement` does. `source` is the whole selector, for
 * the error message.
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[], source: string): Requirement {
  const fail = (reason: string): never => {
    throw new LabelSelectorError(source, reason);
  };
  const badKey = qualifiedNameProblem(key);
  if (badKey) fail(badKey);
  switch (operator) {
    case '=':
    case '!=':
      if (values.length !== 1) fail(`'${operator}' needs exactly one value for key ${JSON.stringify(key)}`);
      break;
    case 'in':
    case 'notin':
      if (values.length === 0) fail(`'${operator}' needs at least one value for key ${JSON.stringify(key)}`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) fail(`'${operator === '!' ? 'does not exist' : 'exists'}' takes no values for key ${JSON.stringify(key)}`);
      break;
    case '>':
    case '<':
      if (values.length !== 1 || !INTEGER.test(values[0]!)) {
        fail(`'${operator}' needs exactly one integer value for key ${JSON.stringify(key)}`);
      }
      break;
  }
  if (operator !== '>' && operator !== '<') {
    for (const v of values) {
      const badValue = labelValueProblem(v);
      if (badValue) fail(badValue);
    }
  }
  return { key, operator, values: [...new Set(values)].sort() };
}

/** Whether `labels` satisfy `r`. `!=`, `notin` and `!` hold for objects without the key. */
export function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case '=':
    case 'in':
      return value !== undefined && r.values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case '>':
    case '<': {
      if (value === undefined || !INTEGER.test(value)) return false;
      // BigInt: label values are int64 in Kubernetes, beyond what a double holds exactly.
      const have = BigInt(value);
      const want = BigInt(r.values[0]!);
      return r.operator === '>' ? have > want : have < want;
    }
  }
}

/** The canonical text of one requirement, as apimachinery prints it. */
export function requirementToString(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case '=':
    case '!=':
    case '<':
    case '>':
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}
