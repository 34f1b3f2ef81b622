/**
 * `@multicluster-runtime/core/labels`: label selectors: parsing, matching and the requirement model behind them, from
 * `@multicluster-runtime/apimachinery` (one implementation for core and envtest). The package root exports the part
 * of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { LabelOperator, LabelSelector, LabelSelectorObject, Requirement } from '@multicluster-runtime/apimachinery';
export { LabelSelectorError, everythingSelector, labelSelectorFromObject, parseLabelSelector } from '@multicluster-runtime/apimachinery';
