/**
 * `@multicluster-runtime/core/labels`: label selectors: parsing, matching and the requirement model behind them. The
 * package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { LabelSelector, LabelSelectorObject } from './selector.js';
export { everythingSelector, labelSelectorFromObject, parseLabelSelector } from './selector.js';
export type { LabelOperator, Requirement } from './requirement.js';
export { LabelSelectorError } from './errors.js';
