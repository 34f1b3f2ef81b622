/**
 * Bearer tokens added while kube-apiserver runs. Its static token file is read once at start, so tokens added
 * later are answered by this in-process TokenReview webhook (`--authentication-token-webhook-config-file`, cache
 * off). The webhook listens on loopback only and accepts only kube-apiserver's client certificate, so it cannot
 * be used as an oracle for tokens by other local processes.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { checkTokenUser, tokenExpiry, type TokenOptions, type TokenUser } from '../auth/token-user.js';
import { TestEnvironmentOptionsError } from './errors.js';

/** Who a token authenticates as. */
export interface TokenWebhookOptions {
  readonly caPem: string;
  /** Serving certificate for 127.0.0.1, signed by caPem. */
  readonly certPem: string;
  readonly keyPem: string;
}

interface TokenReviewRequest {
  readonly apiVersion?: string;
  readonly spec?: { readonly token?: unknown; readonly audiences?: unknown };
}

const maxBodyBytes = 64 * 1024;

export class TokenWebhook {
  private readonly tokens = new Map<string, { user: TokenUser; expiresAt: number }>();

  private constructor(
    private readonly server: Server,
    private readonly caPem: string,
    readonly url: string,
  ) {}

  /** Starts the webhook on a free loopback port. */
  static async start(options: TokenWebhookOptions): Promise<TokenWebhook> {
    let webhook: TokenWebhook | undefined;
    const server = createServer(
      { ca: options.caPem, cert: options.certPem, key: options.keyPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => webhook?.handle(req, res),
    );
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0 }, () => {
        server.off('error', reject);
        resolveListen();
      });
    });
    // A leaked webhook must never keep the test process alive.
    server.unref();
    webhook = new TokenWebhook(server, options.caPem, `https://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`);
    return webhook;
  }

  /**
   * Accepts `token` as `user` from now on, until `options.expiresAt` (replacing an earlier entry for the same token).
   * kube-apiserver keeps a successful authentication for 10 s, so an expired token may work that much longer.
   */
  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void {
    const fail = (message: string) => new TestEnvironmentOptionsError(message);
    this.tokens.set(token, { user: checkTokenUser(token, user, fail), expiresAt: tokenExpiry(options, fail) });
  }

  /** kube-apiserver's `--authentication-token-webhook-config-file`: a kubeconfig naming this webhook. */
  kubeconfig(client: { certPem: string; keyPem: string }): string {
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'token-webhook', cluster: { server: this.url, 'certificate-authority-data': b64(this.caPem) } }],
      users: [{ name: 'kube-apiserver', user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) } }],
      contexts: [{ name: 'webhook', context: { cluster: 'token-webhook', user: 'kube-apiserver' } }],
      'current-context': 'webhook',
    });
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolveClose) => this.server.close(() => resolveClose()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    // kube-apiserver's client appends ?timeout=…, so match the path only.
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    if (req.method !== 'POST' || path !== '/authenticate') return reply(404, { error: 'not found' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) req.destroy();
      else chunks.push(chunk);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      let review: TokenReviewRequest;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TokenReviewRequest;
      } catch {
        return reply(400, { error: 'body is not a TokenReview' });
      }
      const token = review.spec?.token;
      const entry = typeof token === 'string' ? this.tokens.get(token) : undefined;
      const user = entry && Date.now() < entry.expiresAt ? entry.user : undefined;
      const audiences = Array.isArray(review.spec?.audiences) ? review.spec.audiences : [];
      reply(200, {
        apiVersion: review.apiVersion ?? 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        status: user
          ? {
              authenticated: true,
              user: { username: user.username, uid: user.uid ?? user.username, groups: [...(user.groups ?? [])] },
              audiences,
            }
          : { authenticated: false },
      });
    });
  }
}
