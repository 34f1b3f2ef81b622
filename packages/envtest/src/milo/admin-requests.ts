/**
 * JSON requests to an in-memory server as its admin, for the Milo fixtures: envtest depends on core for types only,
 * so the helpers speak HTTPS themselves, over one keep-alive agent that `close()` ends.
 */
import { Agent, request } from 'node:https';
import { parse } from 'yaml';
import { EnvtestError } from '../errors.js';

/** A fixture request got an unexpected answer. `status` is the HTTP status (0: no answer); retryable for 409/5xx/0. */
export class MiloRequestError extends EnvtestError {
  constructor(readonly method: string, readonly path: string, readonly status: number, detail: string) {
    super(`${method} ${path} failed${status ? ` with ${status}` : ''}: ${detail}`, { retryable: status === 0 || status === 409 || status >= 500 });
  }
}

interface KubeconfigShape {
  clusters?: { cluster?: { 'certificate-authority-data'?: string } }[];
  users?: { user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
}

const fromB64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');

export class AdminRequests {
  private readonly agent: Agent;

  constructor(private readonly baseUrl: string, adminKubeconfig: string) {
    const kc = parse(adminKubeconfig) as KubeconfigShape;
    const user = kc.users?.[0]?.user;
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 16,
      ca: fromB64(kc.clusters?.[0]?.cluster?.['certificate-authority-data']),
      cert: fromB64(user?.['client-certificate-data']),
      key: fromB64(user?.['client-key-data']),
    });
  }

  /** Sends `body` (JSON) and resolves with the parsed answer; rejects with MiloRequestError on a non-2xx status. */
  send<T = Record<string, unknown>>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const url = new URL(path, this.baseUrl);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = request(url, {
        method,
        agent: this.agent,
        headers: { Accept: 'application/json', ...(payload === undefined ? {} : { 'Content-Type': contentType }) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new MiloRequestError(method, path, 0, err.message)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            let message = text.slice(0, 200);
            try {
              message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
            } catch { /* not a Status: keep the raw start */ }
            reject(new MiloRequestError(method, path, status, message));
            return;
          }
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch {
            reject(new MiloRequestError(method, path, status, 'the answer is not JSON'));
          }
        });
      });
      req.on('error', (err) => reject(new MiloRequestError(method, path, 0, err.message)));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
