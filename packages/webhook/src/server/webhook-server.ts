/**
 * The webhook server: one HTTPS listener for every webhook of the fleet. Each review is read within limits, resolved
 * to the member it came from and that member's engaged Cluster, then handed to the webhook registered on its path.
 * It is a manager runnable that needs no leader election (every replica answers its share of reviews), and Aware
 * only to drop a departed member's metrics. Stopping refuses new connections, finishes the reviews in flight, then
 * closes.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ClusterNotOwnedError,
  isClusterNotFound,
  silentLogger,
  type Cluster,
  type ClusterName,
  type Logger,
  type Provider,
} from '@multicluster-runtime/core';
import { admissionReviewResponse, parseAdmissionReview } from '../admission/review.js';
import { resolveCluster, splitClusterPath } from '../cluster/resolve.js';
import { BadReviewError, WebhookOptionsError } from '../errors.js';
import type { AdmissionWebhook } from '../handlers/types.js';
import { WebhookMetrics, registryOf, type RejectReason } from '../metrics/webhook-metrics.js';
import { CertificateWatcher, loadIdentity } from './certificate-watcher.js';
import { readBody, writeError, writeJson, writeText } from './http-io.js';
import { resolveServerOptions, type ResolvedServerOptions, type WebhookServerOptions } from './options.js';
import { apiServerTimeoutMs, runReview } from './run-review.js';

/** What the server needs from the manager: the engaged Cluster of a member. */
export interface ClusterLookup {
  /** The engaged cluster of this name; throws ClusterNotFoundError when there is none. */
  getCluster(name: ClusterName, signal?: AbortSignal): Promise<Cluster>;
  /** The manager's provider, to tell an unknown cluster from one not engaged yet. */
  getProvider?(): Provider | undefined;
  readonly logger?: Logger;
  readonly metrics?: unknown;
}

const RESERVED = ['/healthz', '/readyz', '/metrics'];

interface Registered {
  readonly name: string;
  readonly webhook: AdmissionWebhook;
}

/**
 * One HTTPS admission webhook server for the whole fleet: it finds the member each AdmissionReview comes from (a
 * `/clusters/<name>` path, kcp's annotation or Milo's user extras), and hands the handler that member's cluster.
 */
export class WebhookServer {
  readonly name = 'webhook-server';
  readonly needLeaderElection = false;
  readonly metrics: WebhookMetrics;
  private readonly options: ResolvedServerOptions;
  private readonly log: Logger;
  private readonly hooks = new Map<string, Registered>();
  private server: Server | undefined;
  private certificates: CertificateWatcher | undefined;
  private started = false;
  private stopping = false;
  private resolveReady!: (ok: boolean) => void;
  private readonly ready = new Promise<boolean>((resolve) => (this.resolveReady = resolve));
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private readonly hardStop = new AbortController();
  private readonly engagedTokens = new Map<ClusterName, object>();

  constructor(
    private readonly clusters: ClusterLookup,
    options: WebhookServerOptions,
  ) {
    this.options = resolveServerOptions(options);
    this.log = (options.logger ?? clusters.logger ?? silentLogger).with({ component: 'webhook-server' });
    this.metrics = new WebhookMetrics(options.registry ?? registryOf(clusters.metrics));
  }

  /** Serves `webhook` on `path` (and on `/clusters/<member>/<path>` for each member). Works before and after start. */
  register(path: string, webhook: AdmissionWebhook): void {
    if (typeof path !== 'string' || !path.startsWith('/') || path.length < 2)
      throw new WebhookOptionsError(`a webhook path must start with "/" and name something, got ${JSON.stringify(path)}`);
    if (RESERVED.includes(path) || path.startsWith('/clusters/')) throw new WebhookOptionsError(`the path ${path} is reserved`);
    if (this.hooks.has(path)) throw new WebhookOptionsError(`a webhook is already registered on ${path}`);
    if (!webhook || typeof webhook.handle !== 'function') throw new WebhookOptionsError(`the webhook for ${path} has no handler`);
    this.hooks.set(path, { name: webhook.options.name ?? path, webhook });
  }

  /** Listening address, once started. */
  get url(): string {
    const addr = this.server?.address() as AddressInfo | null | undefined;
    if (!addr) throw new WebhookOptionsError('the webhook server is not listening');
    const host = !this.options.host || this.options.host === '0.0.0.0' || this.options.host === '::' ? '127.0.0.1' : this.options.host;
    return `https://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo).port;
  }

  /** The serving certificate's serial number (changes when the files rotate). */
  get certificateSerial(): string | undefined {
    return this.certificates?.identity.serial;
  }

  /** Resolves true once the server listens, false if `signal` aborts first. */
  waitForReady(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.ready.then((ok) => {
        signal.removeEventListener('abort', onAbort);
        resolve(ok);
      });
    });
  }

  /** Tracks members only to drop their metrics once they leave. */
  engage(signal: AbortSignal, name: ClusterName): Promise<void> {
    const token = {};
    this.engagedTokens.set(name, token);
    signal.addEventListener(
      'abort',
      () => {
        if (this.engagedTokens.get(name) !== token) return;
        this.engagedTokens.delete(name);
        this.metrics.forgetCluster(name);
      },
      { once: true },
    );
    return Promise.resolve();
  }

  /** Serves HTTPS until `signal` aborts, then closes connections and stops. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new WebhookOptionsError('the webhook server was already started');
    this.started = true;
    const o = this.options;
    try {
      const identity = await loadIdentity(o, o.tlsMinVersion);
      const server = createServer({
        ...identity.options,
        requestCert: o.clientCAFile !== undefined,
        rejectUnauthorized: o.clientCAFile !== undefined,
        // Slow or stuck clients never hold a connection past the review timeout (+ time to send a large body).
        requestTimeout: o.timeoutMs + 30_000,
        headersTimeout: 30_000,
        keepAliveTimeout: 30_000,
      });
      server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.serve(req, res));
      server.on('tlsClientError', (err) => this.log.debug('TLS handshake failed', { error: err.message }));
      this.certificates = new CertificateWatcher(
        { files: o, minVersion: o.tlsMinVersion, logger: this.log, onRotate: (next) => server.setSecureContext(next.options) },
        identity,
      );
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(o.port, o.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      this.server = server;
      this.certificates.start();
      this.log.info('webhook server listening', { url: this.url, webhooks: [...this.hooks.keys()] });
      this.resolveReady(true);
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    } catch (err) {
      this.resolveReady(false);
      await this.certificates?.close();
      throw err;
    }
    await this.stop();
  }

  private async stop(): Promise<void> {
    this.stopping = true;
    const server = this.server!;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.inFlight > 0) {
      this.log.info('finishing reviews in flight', { reviews: this.inFlight });
      const drained = new Promise<void>((resolve) => (this.drained = resolve));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), this.options.shutdownTimeoutMs)));
      if (await Promise.race([drained.then(() => false), late])) {
        this.log.warn('reviews still in flight at the shutdown deadline; answering them now', { reviews: this.inFlight });
        this.hardStop.abort(new Error('the webhook server is stopping'));
        // Handlers are cut off now; their failurePolicy answers are on their way out.
        await drained;
      }
      clearTimeout(timer);
    }
    server.closeAllConnections();
    await closed;
    await this.certificates?.close();
    this.log.info('webhook server stopped');
  }

  private reject(
    res: ServerResponse,
    webhook: string,
    reason: RejectReason,
    code: number,
    message: string,
    headers?: Record<string, string>,
  ): void {
    this.metrics.rejectedRequest(webhook, reason);
    writeError(res, code, message, this.stopping || code === 413, headers);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'https://webhook.invalid');
      if (url.pathname === '/healthz') return writeText(res, 200, 'ok');
      if (url.pathname === '/readyz') return this.stopping ? writeText(res, 503, 'shutting down') : writeText(res, 200, 'ok');
      const split = this.options.clusterSources.has('path') ? splitClusterPath(url.pathname) : { cluster: undefined, path: url.pathname };
      if ('invalid' in split) return this.reject(res, '', 'bad_request', 400, split.invalid);
      const hook = this.hooks.get(split.path);
      if (!hook) return this.reject(res, '', 'not_found', 404, `no webhook is served on ${split.path}`);
      if (req.method !== 'POST') return this.reject(res, hook.name, 'bad_request', 405, 'admission reviews are POSTed', { Allow: 'POST' });
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json')
        return this.reject(res, hook.name, 'bad_request', 415, `expected Content-Type application/json, got ${JSON.stringify(type)}`);
      await this.review(req, res, url, split.cluster, hook);
    } catch (err) {
      if (err instanceof BadReviewError)
        return this.reject(res, '', err.httpStatus === 413 ? 'too_large' : 'bad_request', err.httpStatus, err.message);
      this.log.error('serving a webhook request failed', err);
      writeError(res, 500, 'internal error', true);
    }
  }

  private async review(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    pathCluster: string | undefined,
    hook: Registered,
  ): Promise<void> {
    const started = performance.now();
    this.inFlight++;
    this.metrics.reviewStarted(hook.name);
    try {
      let request;
      try {
        request = parseAdmissionReview(await readBody(req, this.options.maxBodyBytes));
      } catch (err) {
        if (!(err instanceof BadReviewError)) throw err;
        return this.reject(res, hook.name, err.httpStatus === 413 ? 'too_large' : 'bad_request', err.httpStatus, err.message);
      }
      const answer = (response: Parameters<typeof admissionReviewResponse>[0]): void =>
        writeJson(res, 200, admissionReviewResponse(response), this.stopping);
      const resolved = resolveCluster(request, pathCluster, this.options.clusterSources, this.options.clusterName);
      if ('conflict' in resolved) {
        this.metrics.rejectedRequest(hook.name, 'cluster_conflict');
        return answer({
          uid: request.uid,
          allowed: false,
          status: { status: 'Failure', code: 403, reason: 'Forbidden', message: resolved.conflict },
        });
      }
      const log = this.log.with({ webhook: hook.name, cluster: resolved.cluster });
      const timeoutMs = Math.min(
        hook.webhook.options.timeoutMs ?? this.options.timeoutMs,
        (apiServerTimeoutMs(url.searchParams) ?? Infinity) * 0.9,
      );
      let cluster: Cluster;
      try {
        cluster = await this.lookup(resolved.cluster, AbortSignal.any([this.hardStop.signal, AbortSignal.timeout(timeoutMs)]));
      } catch (err) {
        const message = isClusterNotFound(err)
          ? `cluster ${JSON.stringify(resolved.cluster)} is not engaged with this webhook server`
          : `cannot reach cluster ${JSON.stringify(resolved.cluster)}: ${err instanceof Error ? err.message : String(err)}`;
        this.metrics.rejectedRequest(hook.name, 'unknown_cluster');
        log.debug('review for a cluster that is not engaged', { message });
        if (this.options.unknownCluster === 'error') return writeError(res, 404, message, this.stopping);
        return answer({ uid: request.uid, allowed: false, status: { status: 'Failure', code: 403, reason: 'Forbidden', message } });
      }
      const outcome = await runReview({
        webhook: hook.webhook,
        name: hook.name,
        request,
        clusterName: resolved.cluster,
        cluster,
        timeoutMs,
        stop: this.hardStop.signal,
        logger: log,
      });
      if (outcome.failure) this.metrics.handlerFailed(hook.name, resolved.cluster, outcome.failure);
      this.metrics.reviewDone(hook.name, resolved.cluster, outcome.result, (performance.now() - started) / 1000);
      answer(outcome.response);
    } finally {
      this.metrics.reviewFinished(hook.name);
      if (--this.inFlight === 0) this.drained?.();
    }
  }

  /** The member's Cluster; under sharding a member owned by another replica is still answered from the provider. */
  private async lookup(name: ClusterName, signal: AbortSignal): Promise<Cluster> {
    try {
      return await this.clusters.getCluster(name, signal);
    } catch (err) {
      const provider = err instanceof ClusterNotOwnedError ? this.clusters.getProvider?.() : undefined;
      if (provider) return provider.get(name, signal);
      throw err;
    }
  }
}
