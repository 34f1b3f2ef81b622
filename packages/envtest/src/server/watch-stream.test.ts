/**
 * WatchStream on the wire: the events of one turn of the event loop leave as one HTTP chunk (one write per watcher,
 * not one per event), in order; events of later turns arrive as they happen; a watch that ends delivers what was sent
 * before its end.
 */
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { credentialsFromKubeconfig, KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';

let server: ApiServer;
let client: KubeHttpClient;
const cms = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = await startApiServer();
  client = new KubeHttpClient(server.kubeconfig());
  for (let i = 0; i < 40; i++) expect((await client.post(cms, { metadata: { name: `cm-${i}` } })).status).toBe(201);
});

afterAll(async () => {
  client.close();
  await server.close();
});

/** The body of a chunked response as the server framed it: one entry per HTTP chunk, until the terminating one. */
async function rawChunks(path: string): Promise<string[]> {
  const creds = credentialsFromKubeconfig(server.kubeconfig());
  const url = new URL(creds.server);
  const socket: TLSSocket = connect({ host: url.hostname, port: Number(url.port), ca: creds.ca, cert: creds.cert, key: creds.key });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`);
  let raw = '';
  for await (const data of socket) raw += (data as Buffer).toString('latin1');
  const head = raw.indexOf('\r\n\r\n');
  expect(raw.slice(0, head)).toMatch(/^HTTP\/1\.1 200 .*transfer-encoding: chunked/is);
  const chunks: string[] = [];
  for (let at = head + 4; ;) {
    const eol = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.slice(at, eol), 16);
    if (size === 0) return chunks;
    chunks.push(Buffer.from(raw.slice(eol + 2, eol + 2 + size), 'latin1').toString('utf8'));
    at = eol + 2 + size + 2;
  }
}

const events = (chunk: string): { type: string; name: string | undefined }[] =>
  chunk
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const e = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
      return { type: e.type, name: e.object.metadata?.name };
    });

test("a watch's initial events, sent in one turn, leave as one chunk and in list order; its end follows them", async () => {
  // The server ends the watch after a second; the initial events and the last bookmark are all it sends.
  const chunks = await rawChunks(`${cms}?watch=true&timeoutSeconds=1&allowWatchBookmarks=true`);
  expect(chunks.length).toBeGreaterThanOrEqual(2);
  const initial = events(chunks[0]!);
  expect(initial.map((e) => e.type)).toEqual(Array<string>(40).fill('ADDED'));
  expect(initial.map((e) => e.name)).toEqual(Array.from({ length: 40 }, (_, i) => `cm-${i}`).sort());
  // The bookmark written as the watch times out reaches the client before the body ends.
  expect(events(chunks.at(-1)!).at(-1)?.type).toBe('BOOKMARK');
});

test('events of writes in later turns still arrive, each when it happens', async () => {
  const watch = await client.watch(cms, { resourceVersion: '0' });
  let initial = 0;
  await watch.until(() => ++initial === 40);
  for (let i = 0; i < 3; i++) {
    expect((await client.post(cms, { metadata: { name: `later-${i}` } })).status).toBe(201);
    const e = await watch.next();
    expect(e).toMatchObject({ type: 'ADDED', object: { metadata: { name: `later-${i}` } } });
  }
  watch.close();
});
