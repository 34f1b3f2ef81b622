/**
 * Transport behaviour over real HTTP against small local servers: JSON answers, Status errors, non-JSON errors,
 * request timeouts, watch streams split at arbitrary bytes, idle watches, aborts and connection failures.
 */
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, InvalidRequestError, TransportClosedError, TransportConfigError, TransportError, isNotFound } from './errors.js';
import { Transport, type TransportOptions, type WatchEvent } from './transport.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function serve(
  handler: Handler,
  prefix = '',
  options: TransportOptions = {},
): Promise<{ transport: Transport; server: Server; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const transport = Transport.forConfig(kubeconfig(`http://127.0.0.1:${port}${prefix}`, { token: 'secret-token' }), options);
  cleanups.push(async () => {
    await transport.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { transport, server, requests };
}

function kubeconfig(server: string, user: Record<string, unknown> = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The error `promise` rejects with; fails the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (err: unknown) => err,
  );
}

async function collect(events: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('Transport.request', () => {
  it('sends the token, query and JSON body, keeps the server path prefix and parses the answer', async () => {
    const { transport, requests } = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => json(res, 201, { echo: JSON.parse(body), url: req.url }));
    }, '/clusters/root:org/');
    const out = await transport.request<{ echo: unknown; url: string }>({
      method: 'POST',
      path: '/api/v1/namespaces/a%20b/configmaps',
      query: { fieldManager: 'me', dryRun: undefined, limit: 5, force: true },
      body: { metadata: { name: 'x' } },
    });
    expect(out.echo).toEqual({ metadata: { name: 'x' } });
    expect(out.url).toBe('/clusters/root:org/api/v1/namespaces/a%20b/configmaps?fieldManager=me&limit=5&force=true');
    expect(transport.server).toMatch(/\/clusters\/root:org$/);
    expect(requests[0]!.headers['authorization']).toBe('Bearer secret-token');
    expect(requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('turns a Status body into an ApiError with its reason, and keeps credentials out of the message', async () => {
    const { transport } = await serve((_req, res) =>
      json(res, 409, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'AlreadyExists',
        code: 409,
        message: 'configmaps "x" already exists',
        details: { name: 'x', kind: 'configmaps' },
      }),
    );
    const err = await rejection(transport.request({ method: 'POST', path: '/api/v1/namespaces/d/configmaps', body: {} }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 409, reason: 'AlreadyExists', retryable: false, method: 'POST' });
    expect(err.status.details.name).toBe('x');
    expect(err.message).toContain('already exists');
    expect(err.message).not.toContain('secret-token');
  });

  it('synthesizes a NotFound Status for "404 page not found" and a reason for bare 5xx', async () => {
    let code = 404;
    const { transport } = await serve((_req, res) => {
      // Longer than the transport waits for a resend (10 s): answered at once, with the hint kept for the caller.
      res.writeHead(code, { 'Content-Type': 'text/plain', 'Retry-After': '30' });
      res.end(code === 404 ? '404 page not found' : 'upstream unavailable');
    });
    const notFound = await rejection(transport.request({ method: 'GET', path: '/apis/x/v1' }));
    expect(isNotFound(notFound)).toBe(true);
    expect(notFound.status).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound' });
    expect(notFound.message).toContain('the server could not find the requested resource');
    code = 503;
    const unavailable = await rejection(transport.request({ method: 'GET', path: '/x' }));
    expect(unavailable).toMatchObject({ code: 503, reason: 'ServiceUnavailable', retryable: true, retryAfterSeconds: 30 });
  });

  it('fails with a retryable timeout TransportError when the server does not answer in time', async () => {
    const { transport } = await serve(() => undefined);
    const started = Date.now();
    const err = await rejection(transport.request({ method: 'GET', path: '/slow', timeoutMs: 200 }));
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("rejects with the caller's abort reason, not a TransportError", async () => {
    const { transport } = await serve(() => undefined);
    const ac = new AbortController();
    const pending = transport.request({ method: 'GET', path: '/slow', signal: ac.signal });
    ac.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('reports a refused connection as a connect TransportError', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const transport = Transport.forConfig(kubeconfig(`http://127.0.0.1:${port}`));
    cleanups.push(() => transport.close());
    const err = await rejection(transport.request({ method: 'GET', path: '/api' }));
    expect(err).toBeInstanceOf(TransportError);
    expect(err.kind).toBe('connect');
  });

  it('reports a non-JSON success body as a protocol error', async () => {
    const { transport } = await serve((_req, res) => res.end('<html>'));
    await expect(transport.request({ method: 'GET', path: '/' })).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('sends a request again when the server answers 429 or 5xx with Retry-After, a bounded number of times', async () => {
    const answers = [429, 503, 200];
    const { transport, requests } = await serve((_req, res) => {
      const code = answers.shift() ?? 429;
      res.writeHead(code, { 'Content-Type': 'application/json', 'Retry-After': '0' });
      res.end(
        JSON.stringify(
          code === 200 ? { ok: true } : { kind: 'Status', code, reason: code === 429 ? 'TooManyRequests' : 'ServiceUnavailable' },
        ),
      );
    });
    expect(await transport.request({ method: 'POST', path: '/x', body: {} })).toEqual({ ok: true });
    expect(requests).toHaveLength(3);
    // Still throttled after the retries: the 429 reaches the caller, marked retryable.
    const err = await rejection(transport.request({ method: 'GET', path: '/x' }));
    expect(err).toMatchObject({ code: 429, retryable: true, retryAfterSeconds: 0 });
    expect(requests).toHaveLength(3 + 6);
  });

  it('does not resend a 5xx without Retry-After, nor wait longer than 10 s for one', async () => {
    let retryAfter: string | undefined;
    const { transport, requests } = await serve((_req, res) => {
      res.writeHead(500, retryAfter ? { 'Retry-After': retryAfter } : {});
      res.end();
    });
    await expect(transport.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 500, reason: 'InternalError' });
    retryAfter = '60';
    await expect(transport.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 500, retryAfterSeconds: 60 });
    expect(requests).toHaveLength(2);
  });

  it('leaves no listener on a long-lived caller signal once requests and watches are over', async () => {
    const { transport } = await serve((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(req.url?.includes('watch') ? '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n' : '{}');
    });
    const parent = new AbortController().signal;
    await Promise.all(Array.from({ length: 20 }, () => transport.request({ method: 'GET', path: '/x', signal: parent })));
    await collect(await transport.watch({ path: '/w', signal: parent }));
    expect(getEventListeners(parent, 'abort')).toHaveLength(0);
  });

  it('opens no connection for a request abandoned while it waited for a free one', async () => {
    const held: ServerResponse[] = [];
    const { transport, server, requests } = await serve((req, res) => {
      if (req.url?.startsWith('/hold/')) held.push(res);
      else json(res, 200, {});
    });
    server.keepAliveTimeout = 60_000; // the pool's connections stay open for the whole test
    let connections = 0;
    server.on('connection', () => connections++);
    // Every connection of the request pool (10 by default) busy with an unanswered request.
    const busy = Array.from({ length: 10 }, (_, i) => transport.request({ method: 'GET', path: `/hold/${i}` }));
    await vi.waitFor(() => expect(held).toHaveLength(10));
    // 100 more requests wait for a connection, and their caller gives up on them.
    const abandon = new AbortController();
    const abandoned = Array.from({ length: 100 }, (_, i) =>
      rejection(transport.request({ method: 'GET', path: `/gone/${i}`, signal: abandon.signal })),
    );
    abandon.abort();
    for (const err of await Promise.all(abandoned)) expect(err).toBe(abandon.signal.reason);
    for (const res of held) json(res, 200, {});
    await Promise.all(busy);
    // Sent after them, this request is answered only once whatever was queued before it went through.
    await transport.request({ method: 'GET', path: '/after' });
    expect(connections).toBe(10);
    expect(requests.map((r) => r.url).filter((u) => u?.startsWith('/gone/'))).toEqual([]);
  });

  it('reuses kept-alive connections, gives requests at most maxConnections of them, and a watch one of its own', async () => {
    const held: ServerResponse[] = [];
    const { transport, server } = await serve(
      (req, res) => {
        if (req.url?.startsWith('/hold/')) held.push(res);
        else if (req.url?.startsWith('/watch-held')) res.writeHead(200).flushHeaders();
        else if (req.url?.startsWith('/watch-ends')) res.writeHead(200).end('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
        else json(res, 200, {});
      },
      '',
      { maxConnections: 2 },
    );
    server.keepAliveTimeout = 60_000;
    let connections = 0;
    server.on('connection', () => connections++);
    for (let i = 0; i < 5; i++) await transport.request({ method: 'GET', path: '/one-after-another' });
    expect(await collect(await transport.watch({ path: '/watch-ends', signal: new AbortController().signal }))).toHaveLength(1);
    expect(connections).toBe(1);

    // Four requests the server holds: two reach it, two wait for a free connection.
    const four = Array.from({ length: 4 }, (_, i) => transport.request({ method: 'GET', path: `/hold/${i}` }));
    await vi.waitFor(() => expect(held).toHaveLength(2));
    for (const res of held.splice(0)) json(res, 200, {});
    await vi.waitFor(() => expect(held).toHaveLength(2));
    for (const res of held.splice(0)) json(res, 200, {});
    await Promise.all(four);
    expect(connections).toBe(2);

    // Three open watches take the two idle connections and one new one; requests then get two new ones.
    const stop = new AbortController();
    await Promise.all(Array.from({ length: 3 }, () => transport.watch({ path: '/watch-held', signal: stop.signal })));
    expect(connections).toBe(3);
    await Promise.all(Array.from({ length: 4 }, () => transport.request({ method: 'GET', path: '/beside-watches' })));
    expect(connections).toBe(5);
    stop.abort();
  });

  it('refuses an unencoded or relative path before sending anything', async () => {
    const { transport, requests } = await serve((_req, res) => json(res, 200, {}));
    await expect(transport.request({ method: 'GET', path: '/api/v1/namespaces/a b' })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(transport.request({ method: 'GET', path: 'api' })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(requests).toHaveLength(0);
  });

  it('fails every call after close with TransportClosedError', async () => {
    const { transport } = await serve((_req, res) => json(res, 200, {}));
    await transport.close();
    await expect(transport.request({ method: 'GET', path: '/' })).rejects.toBeInstanceOf(TransportClosedError);
  });
});

describe('Transport.forConfig', () => {
  it('rejects kubeconfigs it cannot use with a clear error', () => {
    expect(() => Transport.forConfig(new KubeConfig())).toThrow(TransportConfigError);
    expect(() => Transport.forConfig(kubeconfig('not a url'))).toThrow(/invalid server URL/);
    expect(() => Transport.forConfig(kubeconfig('ftp://h'))).toThrow(/https:\/\/ or http:\/\//);
    expect(() => Transport.forConfig(kubeconfig('https://h'), { maxConnections: 0 })).toThrow(/maxConnections/);
  });

  it('fails each request with a tls TransportError when the client certificate does not parse, naming none of it', async () => {
    const garbage = Buffer.from('-----BEGIN CERTIFICATE-----\nnot-base64-s3cr3t\n-----END CERTIFICATE-----\n').toString('base64');
    const transport = Transport.forConfig(kubeconfig('https://127.0.0.1:1', { keyData: garbage, certData: garbage }));
    cleanups.push(() => transport.close());
    for (let i = 0; i < 2; i++) {
      const err = await rejection(transport.request({ method: 'GET', path: '/version' }));
      expect(err).toBeInstanceOf(TransportError);
      expect(err).toMatchObject({ kind: 'tls' });
      expect(err.message).toMatch(/TLS credentials do not parse: .*bad base64 decode/);
      expect(err.message).not.toContain('s3cr3t');
    }
  });
});

describe('Transport.watch', () => {
  const events = [
    { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' }, data: { s: 'héllo ✓' } } },
    { type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '2' } } },
    { type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } },
    { type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '4' } } },
  ];

  it('decodes events split across chunks at every byte and several to a chunk', async () => {
    const bytes = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''));
    const { transport, requests } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // One byte at a time for the first half (splitting multi-byte characters), then everything else at once.
      const half = Math.floor(bytes.length / 2);
      for (let i = 0; i < half; i++) res.write(bytes.subarray(i, i + 1));
      res.end(bytes.subarray(half));
    });
    const ac = new AbortController();
    const stream = await transport.watch({ path: '/api/v1/configmaps', query: { resourceVersion: '0' }, signal: ac.signal });
    expect(await collect(stream)).toEqual(events);
    expect(requests[0]!.url).toBe('/api/v1/configmaps?resourceVersion=0&watch=true');
  });

  it('decodes a last event without a trailing newline', async () => {
    const { transport } = await serve((_req, res) => {
      res.writeHead(200);
      res.end(JSON.stringify(events[0]));
    });
    const stream = await transport.watch({ path: '/w', signal: new AbortController().signal });
    expect(await collect(stream)).toEqual([events[0]]);
  });

  it('rejects with ApiError when the server refuses the watch', async () => {
    const { transport } = await serve((_req, res) =>
      json(res, 410, { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version: 1 (5)' }),
    );
    await expect(transport.watch({ path: '/w', signal: new AbortController().signal })).rejects.toMatchObject({
      code: 410,
      reason: 'Expired',
    });
  });

  it('throws a protocol TransportError on a line that is not JSON', async () => {
    const { transport } = await serve((_req, res) => {
      res.writeHead(200);
      res.end(JSON.stringify(events[0]) + '\n{"type":"ADDED","object":{"data":"sec');
    });
    const stream = await transport.watch({ path: '/w', signal: new AbortController().signal });
    const seen: WatchEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const e of stream) seen.push(e);
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(err).toMatchObject({ name: 'TransportError', kind: 'protocol' });
    expect(err.message).not.toContain('sec');
  });

  it('ends quietly when the signal aborts and frees the connection', async () => {
    let open = 0;
    const { transport } = await serve((req, res) => {
      open++;
      req.socket.on('close', () => open--);
      res.writeHead(200);
      res.write(JSON.stringify(events[0]) + '\n');
    });
    const ac = new AbortController();
    const stream = await transport.watch({ path: '/w', signal: ac.signal });
    const seen: WatchEvent[] = [];
    for await (const e of stream) {
      seen.push(e);
      ac.abort();
    }
    expect(seen).toEqual([events[0]]);
    await transport.close();
    await expect.poll(() => open).toBe(0);
  });

  it('frees a watch that was opened but never iterated, when its signal aborts or the server drops it', async () => {
    let open = 0;
    const sockets = new Set<Socket>();
    const { transport } = await serve((req, res) => {
      open++;
      sockets.add(req.socket);
      req.socket.on('close', () => open--);
      res.writeHead(200);
      res.write(JSON.stringify(events[0]) + '\n');
    });
    const ac = new AbortController();
    await transport.watch({ path: '/w', signal: ac.signal });
    await transport.watch({ path: '/w', signal: new AbortController().signal });
    await expect.poll(() => open).toBe(2);
    ac.abort();
    for (const s of sockets) if (s !== [...sockets][0]) s.destroy();
    await expect.poll(() => open).toBe(0);
  });

  it('fails with a timeout TransportError when the stream goes idle', async () => {
    const { transport } = await serve((_req, res) => {
      res.writeHead(200);
      res.write(JSON.stringify(events[0]) + '\n');
    });
    const stream = await transport.watch({ path: '/w', signal: new AbortController().signal, idleTimeoutMs: 300 });
    const seen: WatchEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const e of stream) seen.push(e);
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.kind).toBe('timeout');
    expect(err.message).toContain('received nothing for 300 ms');
  });

  it('throws a reset TransportError when the server breaks the connection mid-stream', async () => {
    const { transport } = await serve((req, res) => {
      res.writeHead(200);
      res.write(JSON.stringify(events[0]) + '\n', () => setImmediate(() => req.socket.destroy()));
    });
    const stream = await transport.watch({ path: '/w', signal: new AbortController().signal });
    const err = await rejection(collect(stream));
    expect(err).toBeInstanceOf(TransportError);
    expect(err.kind).toBe('reset');
  });
});
