/**
 * A deliberately small Kubernetes HTTP client for conformance cases: node:https with the CA and credentials from a
 * kubeconfig, raw status codes and bodies (no client library smoothing anything over), and a line-based watch reader.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';

export interface HttpResponse<T = any> {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** Send this exact text instead of JSON-encoding `body`. */
  rawBody?: string;
}

export interface WatchEvent {
  type: string;
  object: any;
}

interface Credentials {
  server: string;
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
}

function decode(b64: string | undefined): string | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}

export function credentialsFromKubeconfig(yaml: string): Credentials {
  const kc = parse(yaml);
  const ctx = kc.contexts.find((c: any) => c.name === kc['current-context']).context;
  const cluster = kc.clusters.find((c: any) => c.name === ctx.cluster).cluster;
  const user = kc.users.find((u: any) => u.name === ctx.user).user;
  return {
    server: cluster.server,
    ca: decode(cluster['certificate-authority-data'])!,
    ...(user['client-certificate-data'] ? { cert: decode(user['client-certificate-data'])!, key: decode(user['client-key-data'])! } : {}),
    ...(user.token ? { token: user.token } : {}),
  };
}

export class KubeHttpClient {
  private readonly agent: Agent;
  private readonly creds: Credentials;

  constructor(kubeconfig: string, override?: { token?: string; noCredentials?: boolean }) {
    const c = credentialsFromKubeconfig(kubeconfig);
    this.creds = override?.noCredentials
      ? { server: c.server, ca: c.ca }
      : override?.token
        ? { server: c.server, ca: c.ca, token: override.token }
        : c;
    this.agent = new Agent({
      ca: this.creds.ca,
      ...(this.creds.cert ? { cert: this.creds.cert, key: this.creds.key } : {}),
      keepAlive: true,
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private url(path: string, query?: RequestOptions['query']): URL {
    const url = new URL(this.creds.server.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private open(method: string, path: string, opts: RequestOptions): Promise<IncomingMessage> {
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const headers: Record<string, string> = { Accept: 'application/json', ...(opts.headers ?? {}) };
    if (this.creds.token) headers['Authorization'] = `Bearer ${this.creds.token}`;
    if (payload !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      // Node sends DELETE bodies unframed unless told the length.
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = request(this.url(path, opts.query), { method, agent: this.agent, headers }, resolve);
      req.on('error', reject);
      req.end(payload);
    });
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
    const res = await this.open(method, path, opts);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = text;
    if ((res.headers['content-type'] ?? '').startsWith('application/json') && text !== '') body = JSON.parse(text);
    return { status: res.statusCode ?? 0, headers: res.headers, text, body };
  }

  get<T = any>(path: string, query?: RequestOptions['query']): Promise<HttpResponse<T>> {
    return this.request('GET', path, { query });
  }

  post<T = any>(path: string, body: unknown, query?: RequestOptions['query']): Promise<HttpResponse<T>> {
    return this.request('POST', path, { body, query });
  }

  put<T = any>(path: string, body: unknown, query?: RequestOptions['query']): Promise<HttpResponse<T>> {
    return this.request('PUT', path, { body, query });
  }

  patch<T = any>(path: string, contentType: string, body: unknown, query?: RequestOptions['query']): Promise<HttpResponse<T>> {
    return this.request('PATCH', path, { body, contentType, query });
  }

  delete<T = any>(path: string, body?: unknown, query?: RequestOptions['query']): Promise<HttpResponse<T>> {
    return this.request('DELETE', path, { body, query });
  }

  async watch(path: string, query: RequestOptions['query'] = {}): Promise<WatchReader> {
    const res = await this.open('GET', path, { query: { watch: 'true', ...query } });
    return new WatchReader(res);
  }
}

/** Reads newline-delimited watch events; `next()` waits for the next one with a deadline. */
export class WatchReader {
  private readonly queue: WatchEvent[] = [];
  private waiters: (() => void)[] = [];
  private buffer = '';
  ended = false;
  broken = false;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;

  constructor(private readonly res: IncomingMessage) {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line) this.queue.push(JSON.parse(line) as WatchEvent);
      }
      this.wake();
    });
    res.on('end', () => {
      this.ended = true;
      this.wake();
    });
    res.on('error', () => {
      this.broken = true;
      this.ended = true;
      this.wake();
    });
    res.on('close', () => {
      if (!res.complete) this.broken = true;
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** The next event, or undefined if the stream ended first. Throws after `timeoutMs` without one. */
  async next(timeoutMs = 5000): Promise<WatchEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = this.queue.shift();
      if (e) return e;
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Collects events until one satisfies `done` (inclusive). */
  async until(done: (e: WatchEvent) => boolean, timeoutMs = 5000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (!e) throw new Error(`watch ended before the expected event; got ${JSON.stringify(out.map((x) => x.type))}`);
      out.push(e);
      if (done(e)) return out;
    }
  }

  /** Resolves when the server ends the stream (throws after the deadline). */
  async waitForEnd(timeoutMs = 5000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.next(timeoutMs);
      if (!e) return out;
      out.push(e);
    }
  }

  close(): void {
    this.res.destroy();
  }
}
