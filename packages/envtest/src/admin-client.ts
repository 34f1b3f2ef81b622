/**
 * JSON requests and watches to the in-memory server as its admin, for the fake kcp's and fake Milo's fixtures and
 * controllers. envtest depends on core for types only, so this speaks HTTPS itself over one keep-alive agent that
 * `close()` ends.
 */
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';
import { EnvtestError } from './errors.js';

/** A fixture request got an unexpected answer. `status` is the HTTP status (0: no answer); retryable for 409/5xx/0. */
export class AdminRequestError extends EnvtestError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${method} ${path} failed${status ? ` with ${status}` : ''}: ${detail}`, {
      retryable: status === 0 || status === 409 || status >= 500,
    });
  }
}

interface KubeconfigShape {
  clusters?: { cluster?: { 'certificate-authority-data'?: string } }[];
  users?: { user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
}

const fromB64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');

export interface WatchLine {
  type: string;
  object: Record<string, unknown>;
}

export class AdminClient {
  private readonly agent: Agent;

  /** `RequestError` names the flavour in errors (KcpRequestError, MiloRequestError). */
  constructor(
    private readonly baseUrl: string,
    adminKubeconfig: string,
    private readonly RequestError: typeof AdminRequestError = AdminRequestError,
  ) {
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

  private open(
    method: string,
    path: string,
    payload: string | undefined,
    contentType: string,
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.baseUrl),
        {
          method,
          agent: this.agent,
          signal,
          headers: { Accept: 'application/json', ...(payload === undefined ? {} : { 'Content-Type': contentType }) },
        },
        resolve,
      );
      req.on('error', (err) => reject(new this.RequestError(method, path, 0, err.message)));
      req.end(payload);
    });
  }

  /** Sends `body` (JSON) and resolves with the parsed answer; rejects with the request error on a non-2xx status. */
  async send<T = Record<string, unknown>>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const res = await this.open(method, path, body === undefined ? undefined : JSON.stringify(body), contentType);
    const chunks: Buffer[] = [];
    try {
      for await (const c of res) chunks.push(c as Buffer);
    } catch (err) {
      throw new this.RequestError(method, path, 0, err instanceof Error ? err.message : String(err));
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      let message = text.slice(0, 200);
      try {
        const parsed = JSON.parse(text) as { message?: unknown };
        if (typeof parsed.message === 'string') message = parsed.message;
      } catch {
        /* not a Status: keep the raw start */
      }
      throw new this.RequestError(method, path, status, message);
    }
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch {
      throw new this.RequestError(method, path, status, 'the answer is not JSON');
    }
  }

  /** The object, or undefined on 404. */
  async getOrUndefined<T = Record<string, unknown>>(path: string): Promise<T | undefined> {
    try {
      return await this.send<T>('GET', path);
    } catch (err) {
      if (err instanceof this.RequestError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Streams watch events to `onEvent` until the server ends the watch or `signal` aborts; resolves either way. */
  async watch(path: string, onEvent: (e: WatchLine) => void, signal: AbortSignal): Promise<void> {
    let res: IncomingMessage;
    try {
      res = await this.open('GET', path, undefined, '', signal);
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    if ((res.statusCode ?? 0) !== 200) {
      res.resume();
      throw new this.RequestError('GET', path, res.statusCode ?? 0, 'watch refused');
    }
    let buffer = '';
    try {
      for await (const chunk of res) {
        buffer += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) onEvent(JSON.parse(line) as WatchLine);
        }
      }
    } catch (err) {
      if (!signal.aborted) throw new this.RequestError('GET', path, 0, err instanceof Error ? err.message : String(err));
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
