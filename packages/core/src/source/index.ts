/**
 * `@multicluster-runtime/core/source`: sources: where a controller's events come from (a kind in every engaged
 * cluster, or a channel the program feeds). The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { MultiClusterSource, Source } from './types.js';
export type { ChannelOptions } from './channel.js';
export { ChannelSource, channel } from './channel.js';
export type { ClusterFilter, KindOptions } from './kind.js';
export { KindSource, kind } from './kind.js';
export { ChannelFullError, SourceAlreadyStartedError, SourceError, SourceStartFailedError } from './errors.js';
