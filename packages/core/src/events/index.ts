/**
 * `@multicluster-runtime/core/events`: Event recording: the recorder contract, the broadcaster that writes
 * events.k8s.io/v1 Events for one cluster (aggregation, spam limits, bounded buffer), and its errors. The package
 * root exports the recorder contract and the errors.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { EventRecorder, EventType, RecordOptions } from './types.js';
export type { EventBroadcasterOptions } from './broadcaster.js';
export { EventBroadcaster } from './broadcaster.js';
export type { SpamLimit } from './spam-filter.js';
export { EventError, InvalidEventError } from './errors.js';
