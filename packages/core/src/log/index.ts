/**
 * `@multicluster-runtime/core/log`: structured logging: the `Logger` contract, a JSON-lines sink and the silent
 * logger. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { LogFields, LogLevel, LogSink, Logger, LoggerOptions } from './logger.js';
export { createLogger, jsonLinesSink, silentLogger } from './logger.js';
