/**
 * More of what a hostile member's API server can do, each beside a healthy in-memory member under one manager and
 * controller: answer a list one byte a second (slow loris), accept TCP and never finish the TLS handshake, or redirect
 * every request to another host. The healthy member's new ConfigMaps are still reconciled promptly; the slow list is
 * cut at the request deadline and retried, not waited on; and a redirect is never followed, so the credentials meant
 * for the member never reach the host it points at.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { answerDiscovery, tokenConfig, withHealthyMember } from './hostile-member.test-util.js';

let healthy: ApiServer;
/** Answers discovery, then every ConfigMap list one byte a second. */
let slow: Server;
/** Accepts connections and never says a word: a TLS client waits for the ServerHello forever. */
let silent: TcpServer;
/** Redirects every request to `bystander`. */
let redirecting: Server;
/** The host redirects point at: counts what reaches it, and the Authorization headers it sees. */
let bystander: Server;
const sockets = new Set<Socket>();
const counts = { slowLists: 0, silentConnections: 0, redirected: 0, bystanderRequests: 0, bystanderAuthorizations: 0 };
const timers = new Set<NodeJS.Timeout>();

function slowHandler(req: IncomingMessage, res: ServerResponse): void {
  if (answerDiscovery(req, res)) return;
  counts.slowLists++;
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const body = '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}';
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= body.length) return clearInterval(timer);
    res.write(body[sent++]);
  }, 1000);
  timers.add(timer);
  res.on('close', () => clearInterval(timer));
}

const listen = (server: Server | TcpServer) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server: Server | TcpServer) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  healthy = await startApiServer({ name: 'healthy' });
  slow = createServer(slowHandler);
  silent = createTcpServer((socket) => {
    counts.silentConnections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  bystander = createServer((req, res) => {
    counts.bystanderRequests++;
    if (req.headers.authorization) counts.bystanderAuthorizations++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
  redirecting = createServer((req, res) => {
    counts.redirected++;
    res.writeHead(302, { Location: `http://127.0.0.1:${port(bystander)}${req.url ?? '/'}` });
    res.end();
  });
  await Promise.all([slow, silent, bystander, redirecting].map(listen));
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  for (const server of [slow, bystander, redirecting]) server.closeAllConnections();
  await Promise.all([slow, silent, bystander, redirecting].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await healthy.close();
});

/** Runs the fleet with `hostile` beside the healthy member; the healthy member's latencies, and what was engaged then. */
async function withHostileMember(
  name: string,
  hostile: KubeConfig,
  check: () => Promise<void>,
): Promise<{ latencies: number[]; engaged: string[] }> {
  let result!: { latencies: number[]; engaged: string[] };
  // Short deadlines, so the test sees the slow list cut and retried within its time.
  const transport = { requestTimeoutMs: 1_500, connectTimeoutMs: 1_500 };
  await withHealthyMember(healthy, [['hostile', hostile]], { clusterOptions: { transport } }, async ({ mgr, latencies }) => {
    await check();
    result = { latencies: await latencies(name), engaged: mgr.engagedClusters() };
  });
  return result;
}

test('a member answering its list one byte a second: the list is cut at the deadline and retried; the healthy member is not slowed', async () => {
  const { latencies, engaged } = await withHostileMember(
    'slow-loris',
    tokenConfig(`http://127.0.0.1:${port(slow)}`, 'hostile'),
    async () => {
      // Cut at 1.5 s and asked again: more than one list, while the whole body would take ~90 s.
      await expect.poll(() => counts.slowLists, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    },
  );
  expect(Math.max(...latencies)).toBeLessThan(2_000);
  expect(engaged).toContain('hostile'); // it answered discovery; only its list is slow
}, 60_000);

test('a member whose TLS handshake never finishes: the healthy member is not slowed', async () => {
  const { latencies, engaged } = await withHostileMember(
    'tls-stall',
    tokenConfig(`https://127.0.0.1:${port(silent)}`, 'hostile', healthy.caPem),
    async () => {
      // Connected and left hanging, then tried again once the connect deadline passed.
      await expect.poll(() => counts.silentConnections, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    },
  );
  expect(Math.max(...latencies)).toBeLessThan(2_000);
  expect(engaged).not.toContain('hostile'); // never reached
}, 60_000);

test('a member that redirects elsewhere: the redirect is not followed, so no request (and no credential) reaches the other host', async () => {
  const { latencies, engaged } = await withHostileMember(
    'redirect',
    tokenConfig(`http://127.0.0.1:${port(redirecting)}`, 'member-secret-token'),
    async () => {
      await expect.poll(() => counts.redirected, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    },
  );
  expect(Math.max(...latencies)).toBeLessThan(2_000);
  expect(engaged).not.toContain('hostile');
  expect(counts.bystanderRequests).toBe(0);
  expect(counts.bystanderAuthorizations).toBe(0);
}, 60_000);
