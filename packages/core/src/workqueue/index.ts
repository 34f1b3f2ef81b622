/**
 * `@multicluster-runtime/core/workqueue`: work queues and rate limiters: the fair per-cluster queue controllers use,
 * and the client-go style limiters it is built from, for controllers that tune or replace them. The package root
 * exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { DelayingQueue, Queue, RateLimiter, RateLimitingQueue } from './types.js';
export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
export type { FairQueueOptions } from './fair-queue.js';
export { FairQueue } from './fair-queue.js';
export type { RateLimitingQueueOptions } from './rate-limiting-queue.js';
export { RateLimitingWorkQueue, newRateLimitingQueue } from './rate-limiting-queue.js';
export type { RequestQueueOptions } from './request-queue.js';
export { newRequestQueue, requestRateLimiter } from './request-queue.js';
export { PerGroupRateLimiter } from './per-group-rate-limiter.js';
export type { ExponentialFailureRateLimiterOptions } from './exponential-failure-rate-limiter.js';
export { ExponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
export type { BucketRateLimiterOptions } from './bucket-rate-limiter.js';
export { BucketRateLimiter } from './bucket-rate-limiter.js';
export { MaxOfRateLimiter } from './max-of-rate-limiter.js';
export type { FastSlowRateLimiterOptions } from './fast-slow-rate-limiter.js';
export { FastSlowRateLimiter } from './fast-slow-rate-limiter.js';
export type { DefaultControllerRateLimiterOptions } from './default-controller-rate-limiter.js';
export { defaultControllerRateLimiter } from './default-controller-rate-limiter.js';
export { InvalidDelayError, WorkQueueError, WorkQueueOptionsError } from './errors.js';
