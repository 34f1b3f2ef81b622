/**
 * `@multicluster-runtime/core/labels`: label selectors: parsing, matching and the requirement model behind them. The
 * package root exports the part of this most programs need.
 */
export type { LabelSelector, LabelSelectorObject } from './selector.js';
export { everythingSelector, labelSelectorFromObject, parseLabelSelector } from './selector.js';
export type { LabelOperator, Requirement } from './requirement.js';
export { LabelSelectorError } from './errors.js';
