/**
 * What a Transport is asked to do (requests and watches) and how it may be configured, with the checks its
 * constructor runs on the options: bad values fail at construction with the option's name, not at the first request.
 */
import type { ExecCredentialSourceOptions } from './exec-credential.js';
import { TransportConfigError } from './errors.js';

/** Query parameters of a request; undefined values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** The HTTP methods a Transport sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request of a Transport: method, path, query, body and its content type, what to accept, the signal and a timeout. */
export interface TransportRequest {
  method: HttpMethod;
  /** Absolute API path (`/api/v1/…`); a path prefix of the server URL is prepended. */
  path: string;
  query?: Query;
  /** Sent as JSON unless it is a string (then sent as is). */
  body?: unknown;
  /** Default `application/json` when there is a body. */
  contentType?: string;
  /** Default `application/json`; e.g. a PartialObjectMetadataList representation for metadata-only reads. */
  accept?: string;
  signal?: AbortSignal;
  /** Overrides the Transport's request timeout. */
  timeoutMs?: number;
}

/** One watch of a Transport: path, query, what to accept, the signal that ends it, and how long it may stay idle. */
export interface WatchRequest {
  path: string;
  query?: Query;
  /** Default `application/json`. */
  accept?: string;
  signal: AbortSignal;
  /** Overrides the idle timeout for this watch. */
  idleTimeoutMs?: number;
}

/** Options of a Transport: connection pool size, timeouts, 429/503 retries, user agent, exec credentials, response and watch-event size limits, and the recovery probe period. */
export interface TransportOptions {
  /**
   * Most requests in flight at once, each on a connection of its own; more wait their turn. Open watches hold a
   * connection each on top of these, so they never starve requests. Default 10.
   */
  maxConnections?: number;
  /** Deadline of one request, from sending to the last byte of the answer. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** A watch that receives no byte for this long fails. Default: see the module comment. */
  watchIdleTimeoutMs?: number;
  /** Time to establish TCP and TLS. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** How long an idle connection is kept for reuse (the server's keep-alive hint wins when shorter). Default 60 000 ms. */
  keepAliveTimeoutMs?: number;
  /**
   * How often a request is sent again when the server answers 429 or 5xx with a Retry-After header (API Priority and
   * Fairness, a restarting server), waiting as asked; a server asking for more than 10 s gets its error returned
   * instead, for the caller's own backoff. 0 turns this off. Default 5.
   */
  maxThrottleRetries?: number;
  /** Default `multicluster-runtime-ts`. */
  userAgent?: string;
  /** Exec plugin settings (timeout of a run, refresh skew). */
  exec?: ExecCredentialSourceOptions;
  /**
   * Largest answer to a request, in bytes; a larger one fails with a `too-large` TransportError. Default 256 MiB
   * (informers list in pages of 500 objects; the API server refuses objects over ~1.5 MiB).
   */
  maxResponseBytes?: number;
  /** Longest single watch event, in characters; a longer one fails the watch (`too-large`). Default 16 Mi. */
  maxWatchEventLength?: number;
  /**
   * While the server does not answer and an informer waits to retry, one `GET /version` goes out this often (for the
   * whole Transport); its answer wakes every waiting informer at once. Default 2 000 ms.
   */
  recoveryProbeMs?: number;
}

export function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TransportConfigError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}

export function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TransportConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}
