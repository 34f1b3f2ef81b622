/**
 * `@multicluster-runtime/apimachinery`: the Kubernetes API rules that both sides of this project apply — the runtime
 * (core's cache, predicates, toolkit) and the API servers it is tested against (envtest) — in one implementation with
 * no dependencies: label selectors (parse, match, print; string, map and metav1.LabelSelector forms), field selector
 * syntax, name validation, and the deep copy and comparison of JSON objects both make on every event.
 */
export type { LabelSelector, LabelSelectorObject } from './labels/selector.js';
export { everythingSelector, labelSelectorFromObject, parseLabelSelector } from './labels/selector.js';
export type { LabelOperator, Requirement } from './labels/requirement.js';
export { LabelSelectorError } from './labels/errors.js';
export type { FieldRequirement } from './fields/field-selector.js';
export { FieldSelectorError, parseFieldSelector } from './fields/field-selector.js';
export {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isQualifiedNamePart,
  labelValueProblem,
  qualifiedNameProblem,
} from './names.js';
export { cloneJson, jsonEqual } from './json.js';
