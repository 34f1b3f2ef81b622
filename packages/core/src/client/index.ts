/**
 * `@multicluster-runtime/core/client`: the API client stack: typed reads and writes, the HTTP transport, REST
 * mapping, request paths, merge patches and the API error taxonomy, for code that talks to an API server below the
 * level of a cluster's client. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type {
  Client,
  DeleteOptions,
  ListMeta,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  PatchType,
  Reader,
  RequestOptions,
  ResourceMapping,
  RESTMapper,
  WriteOptions,
  Writer,
} from './types.js';
export type { ApiClientOptions, ClientTransport } from './client.js';
export { ApiClient } from './client.js';
export type { CacheReadOptions, ClientOptions, DelegatingClientOptions } from './delegating-client.js';
export { DelegatingClient, newDelegatingClient } from './delegating-client.js';
export type { DiscoveryTransport } from './rest-mapper.js';
export { DiscoveryRESTMapper } from './rest-mapper.js';
export type { TransportOptions, TransportRequest, WatchEvent, WatchRequest as TransportWatchRequest } from './transport.js';
export type { HttpMethod, Query } from './transport-options.js';
export type { ExecCredentialSourceOptions } from './exec-credential.js';
export type { RecentWritesOptions } from './recent-writes.js';
export type { Reachability } from './reachability.js';
export { Transport } from './transport.js';
export type { RequestDescription, Status, StatusDetails, StatusReason, TransportFailure } from './errors.js';
export {
  ApiError,
  CredentialError,
  InvalidRequestError,
  NoKindMatchError,
  TransportClosedError,
  TransportConfigError,
  TransportError,
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isNoMatchError,
  isNotFound,
  isRetryable,
  isServiceUnavailable,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './errors.js';
export { groupVersionPath, resourcePath } from './paths.js';
export type { MergeFromOptions } from './merge-patch.js';
export { createMergePatch, mergeFrom } from './merge-patch.js';
