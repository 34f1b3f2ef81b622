/**
 * The HTTP connection to one API server as one user: every client call, discovery read and watch of a cluster goes
 * through one Transport, which owns one keep-alive connection pool (client-node builds a new pool per request).
 *
 * - Two undici Agents share the TLS material: a bounded pool for requests, and a separate, unbounded one for watches,
 *   so long-lived watches (one HTTP/1.1 connection each) can never starve ordinary requests of connections.
 * - Credentials are resolved per request (see RequestAuth). When they carry new TLS material (a rotated client
 *   certificate from an exec plugin) new Agents are made and the old ones drained.
 * - A 401 on a credential from an exec plugin invalidates it and retries the request once with a fresh one.
 * - A 429, or a 5xx with Retry-After, is sent again after the wait the server asked for (a few times, short waits).
 * - Requests time out after `requestTimeoutMs` (default 30 s). Watches have no overall deadline; instead they fail
 *   with a TransportError when no byte arrives for `watchIdleTimeoutMs`. Its default is 5 minutes, or the requested
 *   `timeoutSeconds` plus 30 s when that is longer, so a quiet but healthy watch (the server ends it cleanly at
 *   `timeoutSeconds`, and sends bookmarks about once a minute when asked) is never cut, while a connection that died
 *   without a FIN is noticed.
 * - A member's API server may be broken or hostile, so what it can make the process hold is bounded: an answer larger
 *   than `maxResponseBytes`, or a watch event longer than `maxWatchEventLength`, fails that request or watch with a
 *   TransportError of kind `too-large` as soon as the limit is passed, and the connection is dropped.
 */
import { Agent, type Dispatcher } from 'undici';
import type { KubeConfig } from '@kubernetes/client-node';
import { deadline } from '../signal/deadline.js';
import { sleep } from '../signal/wait.js';
import { RequestSlots } from './request-slots.js';
import { readLimited, utf8 } from './response-body.js';
import {
  ApiError,
  CredentialError,
  InvalidRequestError,
  TransportClosedError,
  TransportConfigError,
  TransportError,
  type RequestDescription,
  type TransportFailure,
} from './errors.js';
import type { ExecCredentialSourceOptions } from './exec-credential.js';
import { RequestAuth, type RequestCredentials, type TlsMaterial } from './request-auth.js';
import { decodeWatchEvents, WatchDecodeError, WatchLineTooLongError, type WatchEvent } from './watch-decoder.js';

export type { WatchEvent } from './watch-decoder.js';

export type Query = Record<string, string | number | boolean | undefined>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

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

export interface WatchRequest {
  path: string;
  query?: Query;
  /** Default `application/json`. */
  accept?: string;
  signal: AbortSignal;
  /** Overrides the idle timeout for this watch. */
  idleTimeoutMs?: number;
}

export interface TransportOptions {
  /** Most connections open at once for requests (watches have their own pool). Default 10. */
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
}

interface Pools {
  tlsKey: string;
  requests: Agent;
  watches: Agent;
}

const defaultIdleTimeoutMs = 5 * 60_000;
/** Longest wait honoured from a Retry-After header; a server asking for more gets the error instead of a hang. */
const maxRetryAfterSeconds = 10;

export class Transport {
  /** The API server URL, with any path prefix (e.g. `https://kcp:6443/clusters/root:org`). */
  readonly server: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly auth: RequestAuth;
  private readonly options: Required<Omit<TransportOptions, 'watchIdleTimeoutMs' | 'exec'>> & { watchIdleTimeoutMs?: number };
  private pools: Pools | undefined;
  /** Pools replaced after a TLS change, draining; destroyed on close. */
  private readonly retired = new Set<Agent>();
  /** At most `maxConnections` requests reach the request pool at once (see request-slots.ts). */
  private readonly requestSlots: RequestSlots;
  private closed = false;

  private constructor(server: URL, auth: RequestAuth, options: TransportOptions) {
    this.origin = server.origin;
    this.basePath = server.pathname.replace(/\/+$/, '');
    this.server = this.origin + this.basePath;
    this.auth = auth;
    this.options = {
      maxConnections: positive(options.maxConnections, 10, 'maxConnections'),
      requestTimeoutMs: positive(options.requestTimeoutMs, 30_000, 'requestTimeoutMs'),
      connectTimeoutMs: positive(options.connectTimeoutMs, 10_000, 'connectTimeoutMs'),
      keepAliveTimeoutMs: positive(options.keepAliveTimeoutMs, 60_000, 'keepAliveTimeoutMs'),
      userAgent: options.userAgent ?? 'multicluster-runtime-ts',
      maxThrottleRetries: nonNegativeInteger(options.maxThrottleRetries, 5, 'maxThrottleRetries'),
      maxResponseBytes: positive(options.maxResponseBytes, 256 * 1024 * 1024, 'maxResponseBytes'),
      maxWatchEventLength: positive(options.maxWatchEventLength, 16 * 1024 * 1024, 'maxWatchEventLength'),
      watchIdleTimeoutMs:
        options.watchIdleTimeoutMs === undefined ? undefined : positive(options.watchIdleTimeoutMs, 0, 'watchIdleTimeoutMs'),
    };
    this.requestSlots = new RequestSlots(this.options.maxConnections);
  }

  /**
   * A Transport for the current context of `kc`. The context is read now: later changes to `kc` do not affect it
   * (make a new Transport for a new context or credential set). Throws TransportConfigError when the kubeconfig
   * has no usable current cluster, and CredentialError for an unusable exec block.
   */
  static forConfig(kc: KubeConfig, options: TransportOptions = {}): Transport {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new TransportConfigError('the kubeconfig has no current context or its cluster is missing');
    let url: URL;
    try {
      url = new URL(cluster.server);
    } catch {
      throw new TransportConfigError(`cluster ${JSON.stringify(cluster.name)} has an invalid server URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TransportConfigError(`cluster ${JSON.stringify(cluster.name)} server URL must be https:// or http://`);
    }
    if (url.username || url.password) {
      throw new TransportConfigError(`cluster ${JSON.stringify(cluster.name)} server URL must not contain credentials`);
    }
    if (cluster.proxyUrl) {
      throw new TransportConfigError(`cluster ${JSON.stringify(cluster.name)} uses proxy-url, which is not supported yet`);
    }
    const custom = (kc as unknown as { custom_authenticators?: unknown[] }).custom_authenticators ?? [];
    const auth = new RequestAuth(cluster, kc.getCurrentUser() ?? undefined, custom, options.exec);
    return new Transport(url, auth, options);
  }

  /** Sends one request and resolves with the parsed JSON answer (undefined for an empty body). */
  async request<T>(req: TransportRequest): Promise<T> {
    const description = { method: req.method, path: req.path };
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: Record<string, string> = { Accept: req.accept ?? 'application/json' };
    if (body !== undefined) headers['Content-Type'] = req.contentType ?? 'application/json';
    const timeoutMs = req.timeoutMs ?? this.options.requestTimeoutMs;

    const timer = deadline(req.signal, timeoutMs);
    const signal = timer.signal;
    let release: (() => void) | undefined;
    try {
      // Held until the answer is read: the connection is busy until then. Waiting for it counts against the deadline.
      release = await this.requestSlots.acquire(signal);
      const {
        statusCode,
        headers: resHeaders,
        body: resBody,
      } = await this.dispatch('requests', req.method, req.path, req.query, headers, body, signal, { bodyTimeout: timeoutMs });
      let text: string;
      try {
        text = await readLimited(resBody, this.options.maxResponseBytes, description);
      } catch (err) {
        if (isOwnError(err)) throw err;
        throw this.failure(err, description, req.signal, timer.timedOut, timeoutMs);
      }
      if (statusCode < 200 || statusCode > 299) throw apiError(statusCode, text, resHeaders, description);
      if (text === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new TransportError('protocol', `the server answered ${statusCode} with a body that is not JSON`, description);
      }
    } catch (err) {
      if (isOwnError(err)) throw err;
      throw this.failure(err, description, req.signal, timer.timedOut, timeoutMs);
    } finally {
      release?.();
      timer.dispose();
    }
  }

  /**
   * Opens a watch. Resolves once the server accepted it (a non-2xx answer rejects with ApiError). Iterating yields
   * events until the server ends the stream; it throws TransportError when the connection breaks or goes idle, and
   * simply ends when `signal` aborts.
   */
  async watch(req: WatchRequest): Promise<AsyncIterable<WatchEvent>> {
    const description = { method: 'GET', path: req.path };
    const query: Query = { ...req.query, watch: true };
    const idleMs = req.idleTimeoutMs ?? this.options.watchIdleTimeoutMs ?? idleTimeoutFor(query);
    // The timer bounds the wait for response headers only; after that the idle timeout guards the stream.
    const link = deadline(req.signal, this.options.requestTimeoutMs);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.dispatch(
        'watches',
        'GET',
        req.path,
        query,
        { Accept: req.accept ?? 'application/json' },
        undefined,
        link.signal,
        {
          bodyTimeout: idleMs,
        },
      );
    } catch (err) {
      link.dispose();
      if (isOwnError(err)) throw err;
      throw this.failure(err, description, req.signal, link.timedOut, this.options.requestTimeoutMs);
    }
    link.clearTimer();
    const { statusCode, headers, body } = response;
    if (statusCode < 200 || statusCode > 299) {
      const text = await readLimited(body, this.options.maxResponseBytes, description).catch(() => '');
      link.dispose();
      throw apiError(statusCode, text, headers, description);
    }
    // A stream that breaks before (or without) anyone iterating must not become an uncaught 'error' event;
    // iteration still sees the error through its own listener.
    body.on('error', () => undefined);
    const userSignal = req.signal;
    const closedError = () => (this.closed ? new TransportClosedError(this.server) : undefined);
    const maxLineLength = this.options.maxWatchEventLength;
    return (async function* events(): AsyncGenerator<WatchEvent> {
      try {
        yield* decodeWatchEvents(utf8(body as AsyncIterable<Buffer>), maxLineLength);
      } catch (err) {
        if (userSignal.aborted) return;
        if (err instanceof WatchLineTooLongError) {
          throw new TransportError('too-large', `${err.message} (TransportOptions.maxWatchEventLength)`, description);
        }
        if (err instanceof WatchDecodeError) throw new TransportError('protocol', err.message, description);
        const closed = closedError();
        if (closed) throw closed;
        const failure = classify(err);
        const message = failure.kind === 'timeout' ? `watch received nothing for ${idleMs} ms` : `watch stream broke: ${failure.message}`;
        throw new TransportError(failure.kind, message, description, { cause: err });
      } finally {
        // Ends the request when the consumer stops early; a no-op after a clean end.
        if (!body.destroyed) body.destroy();
        link.dispose();
      }
    })();
  }

  /** Closes every connection, including open watches. Later calls fail with TransportClosedError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const agents = [...this.retired];
    if (this.pools) agents.push(this.pools.requests, this.pools.watches);
    this.pools = undefined;
    this.retired.clear();
    await Promise.all(agents.map((a) => a.destroy().catch(() => undefined)));
  }

  /** Resolves credentials, sends, and on a 401 with a refreshable credential retries once with a new one. */
  private async dispatch(
    pool: 'requests' | 'watches',
    method: string,
    path: string,
    query: Query | undefined,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
    timeouts: { bodyTimeout: number },
  ): Promise<Dispatcher.ResponseData> {
    if (!validPath.test(path)) {
      throw new InvalidRequestError(`request path must start with "/" and be URL-encoded: ${JSON.stringify(path.slice(0, 200))}`);
    }
    const url = this.basePath + path + queryString(query);
    let refreshed = false;
    for (let throttled = 0; ;) {
      if (this.closed) throw new TransportClosedError(this.server);
      const credentials = await this.auth.resolve(signal);
      const agent = this.agentFor(credentials, pool);
      const response = await agent.request({
        origin: this.origin,
        path: url,
        method: method,
        headers: { 'User-Agent': this.options.userAgent, ...headers, ...credentials.headers },
        body,
        signal,
        headersTimeout: pool === 'requests' ? timeouts.bodyTimeout : this.options.requestTimeoutMs,
        bodyTimeout: timeouts.bodyTimeout,
      });
      if (response.statusCode === 401 && !refreshed && this.auth.canRefresh) {
        refreshed = true;
        await response.body.dump().catch(() => undefined);
        this.auth.rejected(credentials);
        continue;
      }
      const waitSeconds = serverAskedToRetry(response);
      if (waitSeconds !== undefined && waitSeconds <= maxRetryAfterSeconds && throttled < this.options.maxThrottleRetries) {
        throttled++;
        await response.body.dump().catch(() => undefined);
        // Cut short by the request's deadline or the caller: fail with that reason, as the request itself would.
        if (!(await sleep(waitSeconds * 1000, signal))) throw signal.reason;
        continue;
      }
      return response;
    }
  }

  private agentFor(credentials: RequestCredentials, pool: 'requests' | 'watches'): Agent {
    if (!this.pools || this.pools.tlsKey !== credentials.tlsKey) {
      const old = this.pools;
      this.pools = {
        tlsKey: credentials.tlsKey,
        requests: this.newAgent(credentials.tls, this.options.maxConnections),
        watches: this.newAgent(credentials.tls, undefined),
      };
      if (old) {
        for (const agent of [old.requests, old.watches]) {
          this.retired.add(agent);
          // Lets requests and watches in flight finish on the old material, then frees the sockets.
          void agent
            .close()
            .catch(() => undefined)
            .finally(() => this.retired.delete(agent));
        }
      }
    }
    return this.pools[pool];
  }

  private newAgent(tls: TlsMaterial, connections: number | undefined): Agent {
    return new Agent({
      connections: connections ?? null,
      pipelining: 1,
      keepAliveTimeout: this.options.keepAliveTimeoutMs,
      keepAliveMaxTimeout: this.options.keepAliveTimeoutMs,
      connect: {
        timeout: this.options.connectTimeoutMs,
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        rejectUnauthorized: tls.rejectUnauthorized,
        servername: tls.servername,
        // TCP keep-alive probes find dead peers on quiet connections (client-go uses 30 s too).
        keepAlive: true,
        keepAliveInitialDelay: 30_000,
      },
    });
  }

  /** Turns an undici/network failure into the error the caller sees. */
  private failure(
    err: unknown,
    request: RequestDescription,
    userSignal: AbortSignal | undefined,
    timedOut: boolean,
    timeoutMs: number,
  ): unknown {
    if (userSignal?.aborted) return userSignal.reason;
    if (this.closed) return new TransportClosedError(this.server);
    if (timedOut) return new TransportError('timeout', `no complete answer within ${timeoutMs} ms`, request, { cause: err });
    const { kind, message } = classify(err);
    return new TransportError(kind, message, request, { cause: err });
  }
}

/** Absolute, and only characters that may appear unencoded in a URL path. */
const validPath = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

const tlsCodes = new Set([
  'EPROTO',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);
const connectCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);
const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** The failure kind of a network error, from its code or its cause's code. */
function classify(err: unknown): { kind: TransportFailure; message: string } {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const message = (e as { message?: unknown }).message;
    const text = `${typeof message === 'string' && message !== '' ? message : code}`;
    if (timeoutCodes.has(code)) return { kind: code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : 'timeout', message: text };
    if (connectCodes.has(code)) return { kind: 'connect', message: `cannot connect: ${text}` };
    if (tlsCodes.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) {
      return { kind: 'tls', message: `TLS handshake failed: ${text}` };
    }
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED' || code === 'UND_ERR_ABORTED') {
      return { kind: 'reset', message: `connection broke: ${text}` };
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'reset', message };
}

function isOwnError(err: unknown): boolean {
  return (
    err instanceof ApiError ||
    err instanceof TransportError ||
    err instanceof CredentialError ||
    err instanceof TransportClosedError ||
    err instanceof InvalidRequestError
  );
}

function apiError(
  statusCode: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  request: RequestDescription,
): ApiError {
  const raw = headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const seconds = value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  return ApiError.fromResponse(statusCode, body, request, seconds);
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** See the module comment: never shorter than the server-side timeout the watch asked for, plus 30 s. */
function idleTimeoutFor(query: Query): number {
  const t = Number(query['timeoutSeconds']);
  return Number.isFinite(t) && t > 0 ? Math.max(defaultIdleTimeoutMs, t * 1000 + 30_000) : defaultIdleTimeoutMs;
}

/**
 * Seconds the server asked us to wait before sending the same request again: a 429, or a 5xx with Retry-After,
 * means the request was not processed (client-go retries these too). Undefined when it did not ask.
 */
function serverAskedToRetry(response: Dispatcher.ResponseData): number | undefined {
  const code = response.statusCode;
  if (code !== 429 && code < 500) return undefined;
  const raw = response.headers['retry-after'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TransportConfigError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TransportConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}
