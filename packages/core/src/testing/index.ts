/**
 * @multicluster-runtime/core/testing: the provider acceptance suite every provider runs, the leak checks it uses,
 * and the fixtures tests against API servers share. Needs vitest (an optional peer dependency) for the suite.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { AcceptanceFleet, AcceptanceMember, ProviderAcceptanceFixture } from './fixture.js';
export { describeProviderAcceptance } from './acceptance.js';
export { MARKER_LABEL } from './session.js';

export type { HandleCounts, HandleKind, NoLeaksOptions } from './leaks.js';
export { baselineHandles, expectNoLeaks, openHandles, trackedHandles } from './leaks.js';

export type { KubeconfigSource } from './fixtures.js';
export { configMap, configMapKind, kubeconfigOf } from './fixtures.js';

export type { Leak } from './errors.js';
export { AcceptanceError, AcceptanceFixtureError, AcceptanceTimeoutError, LeakError, ManagerFailedError } from './errors.js';
