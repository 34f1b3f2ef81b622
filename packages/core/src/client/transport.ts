/**
 * The HTTP connection to one API server as one user: every client call, discovery read and watch of a cluster goes
 * through one Transport, which owns one keep-alive connection pool (client-node builds a new pool per request).
 *
 * - Connections are lent whole to one request or one watch (see connections.ts). At most `maxConnections` requests
 *   are in flight at once (see request-slots.ts); a watch holds its own connection while it is open, so long-lived
 *   watches (one HTTP/1.1 connection each) can never starve ordinary requests of connections.
 * - Credentials are resolved per request (see RequestAuth). When they carry new TLS material (a rotated client
 *   certificate from an exec plugin) new connections are made and the old ones drained.
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
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { KubeConfig } from '@kubernetes/client-node';
import { deadline } from '../signal/deadline.js';
import { sleep } from '../signal/wait.js';
import { Connections } from './connections.js';
import { Reachability } from './reachability.js';
import { RequestSlots } from './request-slots.js';
import { nextChunk, readLimited } from './response-body.js';
import { InvalidRequestError, TransportClosedError, TransportConfigError, TransportError, type RequestDescription } from './errors.js';
import { apiError, classify, isOwnError, serverAskedToRetry } from './transport-failures.js';
import {
  nonNegativeInteger,
  positive,
  type Query,
  type TransportOptions,
  type TransportRequest,
  type WatchRequest,
} from './transport-options.js';
import { RequestAuth, type RequestCredentials, type TlsMaterial } from './request-auth.js';
import { WatchDecodeError, WatchLineDecoder, WatchLineTooLongError, type WatchEvent } from './watch-decoder.js';

export type { WatchEvent } from './watch-decoder.js';
export type { HttpMethod, Query, TransportOptions, TransportRequest, WatchRequest } from './transport-options.js';

/** The connections for the TLS material in use, named by that material. */
interface Current {
  tlsKey: string;
  connections: Connections;
}

/** An answer, and the connection it came on: give that back once the body has been read or dropped. */
interface Dispatched {
  response: Dispatcher.ResponseData;
  giveBack: () => void;
}

const defaultIdleTimeoutMs = 5 * 60_000;
/** Longest wait honoured from a Retry-After header; a server asking for more gets the error instead of a hang. */
const maxRetryAfterSeconds = 10;

/** HTTP to one API server: pooled keep-alive connections, credentials, timeouts, retries on 429/503, and watch streams. */
export class Transport {
  /** The API server URL, with any path prefix (e.g. `https://kcp:6443/clusters/root:org`). */
  readonly server: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly auth: RequestAuth;
  private readonly options: Required<Omit<TransportOptions, 'watchIdleTimeoutMs' | 'exec'>> & { watchIdleTimeoutMs?: number };
  private current: Current | undefined;
  /** Connections replaced after a TLS change, draining; destroyed on close. */
  private readonly retired = new Set<Connections>();
  /** At most `maxConnections` requests reach the request pool at once (see request-slots.ts). */
  private readonly requestSlots: RequestSlots;
  private closed = false;
  /** Whether the server answers; informers waiting to retry wait on it too (see reachability.ts). */
  readonly reachability: Reachability;

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
      recoveryProbeMs: positive(options.recoveryProbeMs, 2_000, 'recoveryProbeMs'),
    };
    this.requestSlots = new RequestSlots(this.options.maxConnections);
    const probeTimeoutMs = Math.min(this.options.requestTimeoutMs, this.options.recoveryProbeMs * 5);
    this.reachability = new Reachability(
      (signal) => this.request({ method: 'GET', path: '/version', signal, timeoutMs: probeTimeoutMs }),
      this.options.recoveryProbeMs,
    );
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
    let giveBack: (() => void) | undefined;
    try {
      // Held until the answer is read: the connection is busy until then. Waiting for it counts against the deadline.
      release = await this.requestSlots.acquire(signal);
      const dispatched = await this.dispatch(req.method, req.path, req.query, headers, body, signal, {
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      giveBack = dispatched.giveBack;
      const { statusCode, headers: resHeaders, body: resBody } = dispatched.response;
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
      giveBack?.();
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
    let dispatched: Dispatched;
    try {
      dispatched = await this.dispatch('GET', req.path, query, { Accept: req.accept ?? 'application/json' }, undefined, link.signal, {
        headersTimeout: this.options.requestTimeoutMs,
        bodyTimeout: idleMs,
      });
    } catch (err) {
      link.dispose();
      if (isOwnError(err)) throw err;
      throw this.failure(err, description, req.signal, link.timedOut, this.options.requestTimeoutMs);
    }
    link.clearTimer();
    const { statusCode, headers, body } = dispatched.response;
    // The connection is free again once the body is done with: read to its end, or dropped (by the consumer leaving,
    // the signal aborting or the server), even if nobody ever iterates the watch.
    body.once('close', dispatched.giveBack);
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
        // Bytes to text to events in this one generator: a generator per stage would cost promises per event.
        const text = new TextDecoder('utf-8');
        const lines = new WatchLineDecoder(maxLineLength);
        for (;;) {
          let chunk = nextChunk(body);
          if (chunk instanceof Promise) chunk = await chunk;
          if (chunk === null) break;
          for (const event of lines.push(text.decode(chunk, { stream: true }))) yield event;
        }
        for (const event of lines.push(text.decode())) yield event;
        const last = lines.end();
        if (last) yield last;
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
    this.reachability.close();
    const all = [...this.retired];
    if (this.current) all.push(this.current.connections);
    this.current = undefined;
    this.retired.clear();
    await Promise.all(all.map((connections) => connections.destroy()));
  }

  /** Resolves credentials, sends, and on a 401 with a refreshable credential retries once with a new one. */
  private async dispatch(
    method: string,
    path: string,
    query: Query | undefined,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
    timeouts: { headersTimeout: number; bodyTimeout: number },
  ): Promise<Dispatched> {
    if (!validPath.test(path)) {
      throw new InvalidRequestError(`request path must start with "/" and be URL-encoded: ${JSON.stringify(path.slice(0, 200))}`);
    }
    const url = this.basePath + path + queryString(query);
    let refreshed = false;
    for (let throttled = 0; ;) {
      if (this.closed) throw new TransportClosedError(this.server);
      const credentials = await this.auth.resolve(signal);
      const connections = this.connectionsFor(credentials);
      const connection = connections.lend();
      let given = false;
      const giveBack = () => {
        if (given) return;
        given = true;
        connections.giveBack(connection);
      };
      let response: Dispatcher.ResponseData;
      try {
        response = await connection.request({
          path: url,
          method: method,
          headers: { 'User-Agent': this.options.userAgent, ...headers, ...credentials.headers },
          body,
          signal,
          headersTimeout: timeouts.headersTimeout,
          bodyTimeout: timeouts.bodyTimeout,
        });
      } catch (err) {
        giveBack();
        throw err;
      }
      this.reachability.answered();
      if (response.statusCode === 401 && !refreshed && this.auth.canRefresh) {
        refreshed = true;
        await response.body.dump().catch(() => undefined);
        giveBack();
        this.auth.rejected(credentials);
        continue;
      }
      const waitSeconds = serverAskedToRetry(response);
      if (waitSeconds !== undefined && waitSeconds <= maxRetryAfterSeconds && throttled < this.options.maxThrottleRetries) {
        throttled++;
        await response.body.dump().catch(() => undefined);
        giveBack();
        // Cut short by the request's deadline or the caller: fail with that reason, as the request itself would.
        if (!(await sleep(waitSeconds * 1000, signal))) throw signal.reason;
        continue;
      }
      return { response, giveBack };
    }
  }

  /** The connections for this TLS material; new material (a rotated client certificate) gets new connections. */
  private connectionsFor(credentials: RequestCredentials): Connections {
    if (this.current?.tlsKey === credentials.tlsKey) return this.current.connections;
    const old = this.current?.connections;
    this.current = { tlsKey: credentials.tlsKey, connections: this.newConnections(credentials.tls) };
    if (old) {
      this.retired.add(old);
      // Lets requests and watches in flight finish on the old material, then frees the sockets.
      void old.close().finally(() => this.retired.delete(old));
    }
    return this.current.connections;
  }

  private newConnections(tls: TlsMaterial): Connections {
    return new Connections(this.origin, {
      keepAliveTimeoutMs: this.options.keepAliveTimeoutMs,
      connect: {
        timeout: this.options.connectTimeoutMs,
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        ...sharedSecureContext(tls),
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
    this.reachability.failed();
    if (timedOut) return new TransportError('timeout', `no complete answer within ${timeoutMs} ms`, request, { cause: err });
    const { kind, message } = classify(err);
    return new TransportError(kind, message, request, { cause: err });
  }
}

/** Absolute, and only characters that may appear unencoded in a URL path. */
const validPath = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

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
 * One TLS context (the CA, certificate and key, parsed: about a millisecond of CPU) for every connection made with
 * this material; given only the PEM, each new connection, a watch's say, parses it all again. Material that does not
 * parse gets none here, so connecting fails with the error it always did.
 */
function sharedSecureContext(tls: TlsMaterial): { secureContext?: SecureContext } {
  if (tls.ca === undefined && tls.cert === undefined && tls.key === undefined) return {};
  try {
    return { secureContext: createSecureContext({ ca: tls.ca, cert: tls.cert, key: tls.key }) };
  } catch {
    return {};
  }
}
