/**
 * A member's API server that is hostile or broken cannot make the Transport hold more than its limits: an endless
 * answer and an endless watch event fail with `too-large` once past the limit, and the connection is dropped, so the
 * server stops being read (it counts what it managed to send). A server that trickles its answer one byte at a time,
 * or never finishes the TLS handshake, fails at the request or connect deadline; a redirect is not followed, so the
 * member's credentials never reach another host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, TransportConfigError, TransportError } from './errors.js';
import { Transport, type TransportOptions } from './transport.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const MiB = 1024 * 1024;

/** Writes `first`, then `piece` for as long as the client keeps the connection (honouring backpressure). */
function endless(first: string, piece: string) {
  const sent = { bytes: 0, closed: false };
  const handler = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.on('close', () => (sent.closed = true));
    const write = (chunk: string): void => {
      while (!res.destroyed) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', () => write(piece));
          return;
        }
        chunk = piece;
      }
    };
    write(first);
  };
  return { sent, handler };
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return server;
}

function transportTo(server: string, options: TransportOptions): Transport {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const transport = Transport.forConfig(kc, options);
  cleanups.push(() => transport.close());
  return transport;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, options: TransportOptions): Promise<Transport> {
  const server = await listen(handler);
  return transportTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
}

describe('Transport limits against a hostile server', () => {
  it('an endless list answer fails with too-large once past maxResponseBytes, and the connection is dropped', async () => {
    const { sent, handler } = endless('{"kind":"ConfigMapList","items":[', `{"metadata":{"name":"${'x'.repeat(64 * 1024)}"}},`);
    const transport = await serve(handler, { maxResponseBytes: 4 * MiB });
    const err: unknown = await transport.request({ method: 'GET', path: '/api/v1/configmaps' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('too-large');
    expect((err as Error).message).toMatch(/maxResponseBytes/);
    await vi.waitFor(() => expect(sent.closed).toBe(true));
    // What the server got out is the limit plus what the sockets' buffers took, not the gigabytes it would send.
    expect(sent.bytes).toBeLessThan(4 * MiB + 16 * MiB);
  });

  it('a watch event that never ends fails the watch with too-large once past maxWatchEventLength', async () => {
    const { sent, handler } = endless('{"type":"ADDED","object":{"data":"', 'y'.repeat(64 * 1024));
    const transport = await serve(handler, { maxWatchEventLength: 2 * MiB });
    const events = await transport.watch({ path: '/api/v1/configmaps', signal: new AbortController().signal });
    const err: unknown = await (async () => {
      for await (const _ of events) expect.unreachable('no event was complete');
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('too-large');
    expect((err as Error).message).toMatch(/maxWatchEventLength/);
    await vi.waitFor(() => expect(sent.closed).toBe(true));
    expect(sent.bytes).toBeLessThan(2 * MiB + 16 * MiB);
  });

  it('keeps a multi-byte character whole when the server splits it across packets', async () => {
    const event = { type: 'ADDED', object: { metadata: { name: 'a' }, data: { s: 'h✓llo' } } };
    const bytes = Buffer.from(`${JSON.stringify(event)}\n`);
    const cut = bytes.indexOf(Buffer.from('✓')) + 1; // inside the three bytes of ✓
    const transport = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      res.write(bytes.subarray(0, cut));
      // A pause in the server's output, so the halves reach the client as separate chunks.
      setTimeout(() => res.end(bytes.subarray(cut)), 100);
    }, {});
    const events = await transport.watch({ path: '/api/v1/configmaps', signal: new AbortController().signal });
    const got = [];
    for await (const e of events) got.push(e);
    expect(got).toEqual([event]);
  });

  it('answers within the limits are read whole, and limits that are not positive numbers are refused', async () => {
    const list = { kind: 'ConfigMapList', items: [{ metadata: { name: 'a'.repeat(100_000) } }] };
    const transport = await serve((_req, res) => res.end(JSON.stringify(list)), { maxResponseBytes: 200_000 });
    expect(await transport.request({ method: 'GET', path: '/api/v1/configmaps' })).toEqual(list);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    expect(() => Transport.forConfig(kc, { maxResponseBytes: 0 })).toThrow(TransportConfigError);
    expect(() => Transport.forConfig(kc, { maxWatchEventLength: Number.NaN })).toThrow(/maxWatchEventLength/);
  });

  it('an answer trickled one byte at a time fails at the request deadline, and the connection is dropped', async () => {
    let closed = false;
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => {
        clearInterval(drip);
        closed = true;
      });
    });
    const transport = transportTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { requestTimeoutMs: 500 });
    const err: unknown = await transport.request({ method: 'GET', path: '/api/v1/configmaps' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('timeout');
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it('a server that never finishes the TLS handshake fails at the connect deadline', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => void sockets.push(socket)); // accepts, then never says a word
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const transport = transportTo(`https://127.0.0.1:${(silent.address() as AddressInfo).port}`, { connectTimeoutMs: 300 });
    const err: unknown = await transport.request({ method: 'GET', path: '/version' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('connect');
    expect(sockets.length).toBeGreaterThan(0); // it did connect: the handshake is what never finished
  });

  it('a redirect to another host is not followed: the credentials stay with the member', async () => {
    const elsewhere: (string | undefined)[] = [];
    const other = await listen((req, res) => {
      elsewhere.push(req.headers.authorization);
      res.end('{}');
    });
    const member = await listen((_req, res) => {
      res.writeHead(302, { Location: `http://127.0.0.1:${(other.address() as AddressInfo).port}/api/v1/configmaps` });
      res.end();
    });
    const transport = transportTo(`http://127.0.0.1:${(member.address() as AddressInfo).port}`, {});
    const err: unknown = await transport.request({ method: 'GET', path: '/api/v1/configmaps' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(302);
    expect((err as Error).message).toContain('redirect (302), which is not followed');
    expect((err as Error).message).not.toContain('127.0.0.1:'); // the untrusted Location is not echoed
    expect(elsewhere).toEqual([]);
  });
});
