/**
 * The small HTTP server behind `/metrics`, `/healthz` and `/readyz` (and `/healthz/<check>`, `/readyz/<check>`),
 * and `/debug/clusters` (the fleet as JSON). Probe responses follow the Kubernetes convention: 200 "ok", or 500 with
 * one `[+]name ok` / `[-]name failed: reason` line per check; `?verbose` lists every check on success too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatHostPort, type BindAddress } from './bind-address.js';
import type { HealthChecks } from './checks.js';
import { ListenFailedError } from './errors.js';

/** Anything that renders Prometheus exposition text (a prom-client Registry). */
export interface MetricsSource {
  readonly contentType: string;
  /** The metrics in the text format `contentType` names, as `/metrics` serves them. */
  metrics(): Promise<string>;
}

export interface ProbeRoutes {
  healthz?: HealthChecks;
  readyz?: HealthChecks;
  metrics?: MetricsSource;
  /** What `/debug/clusters` shows (JSON): one entry per member. */
  clusters?: () => unknown;
}

export class ProbeServer {
  private server: Server | undefined;

  constructor(private readonly routes: ProbeRoutes) {}

  /** Starts listening; resolves with the bound `host:port` (the real port when 0 was asked). */
  async listen(bind: BindAddress): Promise<string> {
    if (this.server) throw new Error('probe server already listening');
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        // Only reached if writing the response itself failed; never let it escape as an unhandled rejection.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`internal error: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    });
    const shown = formatHostPort(bind.host ?? '0.0.0.0', bind.port);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(new ListenFailedError(shown, { cause: err }));
      server.once('error', onError);
      server.listen(bind.port, bind.host, () => {
        server.off('error', onError);
        resolve();
      });
    });
    this.server = server;
    const addr = server.address() as AddressInfo;
    return formatHostPort(bind.host ?? addr.address, addr.port);
  }

  /** Stops listening and drops open (keep-alive) connections. Idempotent. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://probe');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return reply(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    const [first, second, ...rest] = url.pathname.split('/').filter((s) => s !== '');
    if (first === 'metrics' && second === undefined && this.routes.metrics) {
      const body = await this.routes.metrics.metrics();
      return reply(res, 200, body, { 'content-type': this.routes.metrics.contentType });
    }
    if (first === 'debug' && second === 'clusters' && rest.length === 0 && this.routes.clusters) {
      return reply(res, 200, `${JSON.stringify({ clusters: this.routes.clusters() }, null, 2)}\n`, { 'content-type': 'application/json' });
    }
    const checks = first === 'healthz' || first === 'livez' ? this.routes.healthz : first === 'readyz' ? this.routes.readyz : undefined;
    if (!checks || rest.length > 0) return reply(res, 404, 'not found\n');
    const name = second === undefined ? undefined : decodeURIComponent(second);
    if (name !== undefined && !checks.has(name)) return reply(res, 404, `no check named ${JSON.stringify(name)}\n`);
    const results = await checks.run(name);
    const failed = results.filter((r) => !r.ok);
    const verbose = url.searchParams.has('verbose');
    if (failed.length === 0 && !verbose) return reply(res, 200, 'ok');
    const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason ?? 'failed'}`));
    lines.push(failed.length === 0 ? `${first} check passed` : `${first} check failed`);
    return reply(res, failed.length === 0 ? 200 : 500, `${lines.join('\n')}\n`);
  }
}

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
