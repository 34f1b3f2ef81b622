/**
 * `@multicluster-runtime/core/options`: checking an options object when it is given, as core's constructors do —
 * every unknown key (with "did you mean"), wrong type and impossible combination at once, in one error. For the
 * authors of providers and other packages built on core; `checkProviderOptions` in `/providers` wraps it for providers.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { Combination } from './check.js';
export { checkOptions } from './check.js';
export type { Problem, Rule, Shape } from './rules.js';
export {
  anyString,
  anyValue,
  arrayOf,
  boolean,
  either,
  func,
  nested,
  nonEmptyString,
  nonNegativeInteger,
  nonNegativeMs,
  oneOf,
  positiveInteger,
  positiveMs,
  positiveNumber,
  recordOf,
  rule,
  withMethods,
} from './rules.js';
