/**
 * The in-memory Kubernetes API server over real HTTPS: lifecycle (start, stop/restart on the same port with state
 * kept, close), kubeconfigs, tokens, statistics and fault injection for tests.
 */
import { constants } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { StatusError, expired, internalError } from './api/status-error.js';
import type { TokenOptions, TokenUser } from './auth/token-user.js';
import type { Authorizer } from './auth/authorizer.js';
import { InvalidOptionsError, ServerListenError, ServerStateError } from './errors.js';
import type { KubeconfigOptions } from './kubeconfig.js';
import { renderKubeconfig } from './kubeconfig.js';
import type { ProcessCredentials } from './tls/process-credentials.js';
import { processCredentials } from './tls/process-credentials.js';
import { ApiState } from './server/api-state.js';
import { startCrdController } from './controllers/crd-controller.js';
import { handleRequest } from './server/dispatch.js';
import { startGarbageCollector } from './controllers/garbage-collector.js';
import { startIpAddressController } from './controllers/ip-address-controller.js';
import { startNamespaceController } from './controllers/namespace-controller.js';
import type { ApiServerOptions, PathMount } from './server/options.js';
import { resolveOptions } from './server/options.js';
import { seedCluster, seedServingObjects } from './server/seed.js';

export interface ApiServerStats {
  /** TLS connections accepted since start (restarts included): proves whether clients reuse connections. */
  connections: number;
  requests: number;
  /** List requests answered (not watches): shows whether a client re-lists. */
  lists: number;
  openWatches: number;
  /** TCP connections open now, also those still in their TLS handshake. */
  tcpConnections: number;
}

export interface ApiServerFaults {
  /** Breaks every open watch connection abruptly, mid-stream. */
  dropWatches(): void;
  /**
   * The next watch request gets a 200 and then a single ERROR event with this status (default 410 Expired), then
   * the stream closes. Calls queue up: N calls fail the next N watches.
   */
  failNextWatch(status?: number): void;
  /** Delays every request by `ms` before it is handled (0 turns it off). */
  setLatency(ms: number): void;
}

export interface ApiServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly name: string;
  /** The CA that signed the server certificate (and the admin client certificate). */
  readonly caPem: string;
  readonly faults: ApiServerFaults;
  /** Kubeconfig YAML that reaches this server: the admin client certificate by default, or the user `opts` gives. */
  kubeconfig(opts?: KubeconfigOptions): string;
  /** Writes kubeconfig(opts) to `path`, readable by the owner only. */
  writeKubeconfig(path: string, opts?: KubeconfigOptions): Promise<void>;
  /** Accepts `Authorization: Bearer <token>` as `user` from now on (until `options.expiresAt`, then 401). */
  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void;
  /** Replaces the authorizer (undefined: allow everything). */
  setAuthorizer(authorizer: Authorizer | undefined): void;
  /** Counters since start: requests, open watches, connections. */
  stats(): ApiServerStats;
  /** Serves a mount from now on (kcp mode only); the returned function removes it. */
  addMount(mount: PathMount): () => void;
  /** Forgets watch/list history: older resourceVersions now get 410 Expired. */
  compact(): void;
  /** Stops listening and ends every connection; state is kept for restart(). */
  stop(): Promise<void>;
  /** Listens again on the same port with the same state. */
  restart(): Promise<void>;
  /** Stops for good and releases everything. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts an in-memory Kubernetes API server over HTTPS on 127.0.0.1, with its own CA and an admin client
 * certificate; `kubeconfig()` reaches it.
 */
export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const resolved = resolveOptions(opts);
  opts.signal?.throwIfAborted();
  const credentials = await processCredentials();
  opts.signal?.throwIfAborted();
  const server = new InMemoryApiServer(new ApiState(resolved), credentials);
  try {
    await server.listen(resolved.port);
    opts.signal?.throwIfAborted();
  } catch (err) {
    await server.close();
    throw err;
  }
  return server;
}

class InMemoryApiServer implements ApiServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;
  private closed = false;
  readonly faults: ApiServerFaults;

  constructor(
    private readonly state: ApiState,
    private readonly credentials: ProcessCredentials,
  ) {
    seedCluster(state, '');
    startCrdController(state);
    if (!state.options.logicalClusters) startIpAddressController(state);
    if (state.options.namespaceController) startNamespaceController(state);
    if (state.options.garbageCollector) startGarbageCollector(state);
    this.faults = {
      dropWatches: () => state.endWatches('abort'),
      failNextWatch: (code = 410) => state.faults.watchFailures.push(watchFailure(code, state.store.currentRv)),
      setLatency: (ms) => {
        if (!Number.isFinite(ms) || ms < 0)
          throw new InvalidOptionsError(`latency must be a non-negative number of milliseconds, got ${ms}`);
        state.faults.latencyMs = ms;
      },
    };
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `https://127.0.0.1:${this.boundPort}`;
  }

  get name(): string {
    return this.state.options.name ?? `envtest-${this.boundPort}`;
  }

  get caPem(): string {
    return this.credentials.ca.certPem;
  }

  kubeconfig(opts?: KubeconfigOptions): string {
    return renderKubeconfig({ server: this.url, name: this.name, caPem: this.caPem, admin: this.credentials.admin }, opts);
  }

  async writeKubeconfig(path: string, opts?: KubeconfigOptions): Promise<void> {
    await writeFile(path, this.kubeconfig(opts), { mode: 0o600 });
  }

  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void {
    this.state.auth.addToken(token, user, options);
  }

  setAuthorizer(authorizer: Authorizer | undefined): void {
    this.state.authorizer = authorizer;
  }

  stats(): ApiServerStats {
    return { ...this.state.counters, openWatches: this.state.watches.size, tcpConnections: this.sockets.size };
  }

  addMount(mount: PathMount): () => void {
    if (!this.state.options.logicalClusters) throw new InvalidOptionsError('mounts require logicalClusters: true');
    const mounts = this.state.options.mounts;
    mounts.push(mount);
    return () => {
      const i = mounts.indexOf(mount);
      if (i >= 0) mounts.splice(i, 1);
    };
  }

  compact(): void {
    this.state.store.compact();
  }

  async listen(port: number): Promise<void> {
    if (this.closed) throw new ServerStateError('the server was closed');
    if (this.server) return;
    const { server: cert, ca } = this.credentials;
    const server = createServer({
      key: cert.keyPem,
      cert: cert.certPem,
      ca: [ca.certPem],
      requestCert: true,
      rejectUnauthorized: false,
      // Like kube-apiserver (Go's TLS server never renegotiates): a connection's client certificate is the one it
      // was opened with, so the authenticator reads it once per connection.
      secureOptions: constants.SSL_OP_NO_RENEGOTIATION,
    });
    server.on('secureConnection', () => this.state.counters.connections++);
    // Every TCP socket, also one still in its TLS handshake, which closeAllConnections() does not know: stop() ends
    // them all, so it never waits for a client's keep-alive to give up on a connection made as the server stopped.
    const sockets = this.sockets;
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('request', (req, res) => void handleRequest(this.state, req, res, `127.0.0.1:${this.boundPort}`));
    server.on('clientError', (_err, socket) => socket.destroy());
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        server.off('listening', onListening);
        reject(
          new ServerListenError(`cannot listen on ${this.state.options.host}:${port}: ${err.message}`, {
            cause: err,
            retryable: err.code === 'EADDRINUSE',
          }),
        );
      };
      const onListening = (): void => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, this.state.options.host);
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
    seedServingObjects(this.state, { host: this.state.options.host, securePort: this.boundPort, clientCaPem: this.caPem });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.state.endWatches('end');
    this.state.abortRequests();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }

  async restart(): Promise<void> {
    if (this.closed) throw new ServerStateError('restart() after close(): start a new server instead');
    await this.stop();
    await this.listen(this.boundPort);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stop();
    this.state.dispose();
  }
}

function watchFailure(code: number, currentRv: number): StatusError {
  if (!Number.isInteger(code) || code < 400 || code > 599)
    throw new InvalidOptionsError(`failNextWatch needs an HTTP error code (400-599), got ${code}`);
  if (code === 410) return expired(`too old resource version: 1 (${currentRv})`);
  if (code === 500) return internalError('injected watch failure');
  return new StatusError(
    code,
    code === 504 ? 'Timeout' : code === 429 ? 'TooManyRequests' : code === 503 ? 'ServiceUnavailable' : 'InternalError',
    `injected watch failure (${code})`,
  );
}
