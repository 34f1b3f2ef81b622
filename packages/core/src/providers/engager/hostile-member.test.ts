/**
 * One hostile member cannot slow the fleet: a member that answers discovery like an API server and then streams an
 * endless ConfigMap list body, or a watch event that never ends (no newline), is engaged beside a healthy in-memory
 * member, under one manager and controller. While it streams (its informer failing with `too-large` and retrying), a
 * ConfigMap created in the healthy member is still reconciled promptly, and the process does not buffer the stream.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { answerDiscovery, json, tokenConfig, withHealthyMember } from './hostile-member.test-util.js';

const MiB = 1024 * 1024;
let healthy: ApiServer;
let hostile: Server;
/** What the hostile member streams: an endless list body, or a valid empty list and then an endless watch line. */
let mode: 'endless-list' | 'endless-watch-line' = 'endless-list';
/** Bytes of endless answers the hostile member managed to send, and how many it was asked for. */
const streamed = { bytes: 0, lists: 0 };

/** Discovery as an API server answers it, for the core group only; every ConfigMap list is an endless body. */
function hostileHandler(req: IncomingMessage, res: ServerResponse): void {
  if (answerDiscovery(req, res)) return;
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path === '/api/v1/configmaps') {
    const watch = /[?&]watch=(true|1)/.test(req.url ?? '');
    if (mode === 'endless-watch-line' && !watch) {
      return json(res, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    }
    streamed.lists++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const piece = mode === 'endless-list' ? `{"metadata":{"name":"${'x'.repeat(200)}"}},` : 'x'.repeat(4096);
    const write = (chunk: string): void => {
      while (!res.destroyed) {
        streamed.bytes += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', () => write(piece));
          return;
        }
        chunk = piece;
      }
    };
    write(
      mode === 'endless-list'
        ? '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":['
        : '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"',
    );
    return;
  }
  if (path.startsWith('/api/v1/namespaces/')) return json(res, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'default' } });
  res.writeHead(404, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
}

beforeAll(async () => {
  healthy = await startApiServer({ name: 'healthy' });
  hostile = createServer(hostileHandler);
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  hostile.closeAllConnections();
  await new Promise<void>((resolve) => hostile.close(() => resolve()));
  await healthy.close();
});

test.each(['endless-list', 'endless-watch-line'] as const)(
  "a member streaming an %s does not delay the healthy member's reconciles",
  async (hostileMode) => {
    mode = hostileMode;
    streamed.bytes = 0;
    streamed.lists = 0;
    const hostileConfig = tokenConfig(`http://127.0.0.1:${(hostile.address() as AddressInfo).port}`, 'hostile');
    // A list body is capped at 8 MiB and a watch event at 1 Mi characters.
    const transport = { maxResponseBytes: 8 * MiB, maxWatchEventLength: MiB };
    await withHealthyMember(healthy, [['hostile', hostileConfig]], { clusterOptions: { transport } }, async ({ latencies }) => {
      // The hostile member is being listed (and refused at the limit) over and over.
      await expect.poll(() => streamed.lists, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      const measured = await latencies(hostileMode);
      // ~0.1 s on an idle member; the report that filed this saw 7.9 s with one hostile member beside it.
      expect(Math.max(...measured)).toBeLessThan(2_000);
      // Each endless answer was cut near the limit, not buffered: what was sent stays within a few limits per list.
      const heapMiB = process.memoryUsage().heapUsed / MiB;
      expect(heapMiB).toBeLessThan(1_024);
      expect(streamed.bytes / Math.max(1, streamed.lists)).toBeLessThan(64 * MiB);
    });
  },
  90_000,
);
