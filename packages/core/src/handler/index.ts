/**
 * `@multicluster-runtime/core/handler`: event handlers: how watch events become reconcile requests (for the object,
 * its owner, or a mapping function). The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { CreateEvent, DeleteEvent, EventHandler, GenericEvent, RequestQueue, UpdateEvent } from './types.js';
export type { EnqueueForObjectOptions } from './enqueue-for-object.js';
export { enqueueRequestForObject } from './enqueue-for-object.js';
export type { EnqueueForOwnerOptions } from './enqueue-for-owner.js';
export { enqueueRequestForOwner } from './enqueue-for-owner.js';
export type { EnqueueFromMapFuncOptions, MapContext, MapFunc, MapTarget } from './enqueue-from-map-func.js';
export { enqueueRequestsFromMapFunc } from './enqueue-from-map-func.js';
