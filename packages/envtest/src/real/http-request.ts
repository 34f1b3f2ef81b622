/**
 * The few HTTP(S) calls the environment makes itself (readiness probes, CRD installs), over node:https with the
 * environment's own CA and admin client certificate. No connection pool: every call opens and closes its own
 * connection, so nothing stays open after stop().
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** TLS material for calls to kube-apiserver. */
export interface TlsClientCredentials {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface HttpCall {
  readonly method?: 'GET' | 'POST';
  readonly url: string;
  readonly body?: unknown;
  readonly tls?: TlsClientCredentials;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

/** Sends one request; rejects on network errors, timeouts and aborts, resolves with any HTTP status. */
export function httpCall(call: HttpCall): Promise<HttpAnswer> {
  const url = new URL(call.url);
  const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const common = { method: call.method ?? 'GET', headers, agent: false as const, signal: call.signal, timeout: call.timeoutMs ?? 10_000 };
  return new Promise((resolveAnswer, reject) => {
    const req =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...common, ca: call.tls?.caPem, cert: call.tls?.certPem, key: call.tls?.keyPem })
        : httpRequest(url, common);
    req.once('timeout', () => req.destroy(new Error(`${common.method} ${url.pathname} timed out`)));
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => resolveAnswer({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(payload);
  });
}
