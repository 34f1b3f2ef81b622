import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';

/** Hostile and malformed input: every request gets an answer (Status or 404 page), and the server keeps serving. */
describe('bad input never crashes or hangs the server', () => {
  let server: ApiServer;
  let client: KubeHttpClient;
  beforeAll(async () => {
    server = await startApiServer();
    client = new KubeHttpClient(server.kubeconfig());
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  const cm = '/api/v1/namespaces/default/configmaps';
  const cases: [string, string, { rawBody?: string; contentType?: string; query?: Record<string, string> }, number][] = [
    ['GET', '/api/v1/namespaces/%ZZ/configmaps', {}, 404],
    ['GET', '/api/v1/namespaces/default/configmaps/a/b/c/d', {}, 404],
    ['POST', cm, { rawBody: 'null' }, 400],
    ['POST', cm, { rawBody: '[1,2]' }, 400],
    ['POST', cm, { rawBody: '"text"' }, 400],
    ['POST', cm, { rawBody: '{"metadata":"x"}' }, 400],
    ['POST', cm, { rawBody: '{"metadata":{"name":7}}' }, 400],
    ['POST', cm, { rawBody: '{"metadata":{"name":"l","labels":{"a":5}}}' }, 400],
    ['POST', cm, { rawBody: '{"metadata":{"name":"f","finalizers":"x"}}' }, 400],
    ['POST', cm, { rawBody: '' }, 400],
    ['POST', `${cm}/named`, { rawBody: '{}' }, 405],
    ['PUT', cm, { rawBody: '{}' }, 405],
    ['GET', cm, { query: { limit: 'abc' } }, 400],
    ['GET', cm, { query: { resourceVersion: 'abc' } }, 400],
    ['GET', cm, { query: { timeoutSeconds: '-1', watch: '1' } }, 400],
    ['GET', cm, { query: { continue: 'x', resourceVersion: '5' } }, 400],
    ['GET', cm, { query: { resourceVersionMatch: 'Sometimes', resourceVersion: '1' } }, 422],
    ['GET', `${cm}/x`, { query: { watch: '1', fieldSelector: 'metadata.name=y' } }, 400],
    ['POST', cm, { rawBody: '{"metadata":{"name":"d"}}', query: { dryRun: 'Maybe' } }, 422],
    ['POST', cm, { rawBody: '{"metadata":{"name":"v"}}', query: { fieldValidation: 'Loose' } }, 422],
    ['DELETE', `${cm}/nothing`, { rawBody: '{"propagationPolicy":"Sideways"}' }, 404],
    ['DELETE', '/api/v1/namespaces/default', { rawBody: '{"propagationPolicy":"Sideways"}' }, 400],
    [
      'PATCH',
      '/api/v1/namespaces/kube-public',
      { rawBody: '[{"op":"remove","path":""}]', contentType: 'application/json-patch+json' },
      422,
    ],
    [
      'PATCH',
      '/api/v1/namespaces/kube-public',
      { rawBody: '{"$patch":"explode"}', contentType: 'application/strategic-merge-patch+json' },
      422,
    ],
    [
      'PATCH',
      '/api/v1/namespaces/kube-public',
      { rawBody: 'a: [', contentType: 'application/apply-patch+yaml', query: { fieldManager: 'x' } },
      400,
    ],
    [
      'PATCH',
      '/api/v1/namespaces/kube-public',
      { rawBody: '{"metadata":{"name":"other"}}', contentType: 'application/merge-patch+json' },
      400,
    ],
    ['DELETE', '/api/v1/namespaces', {}, 405],
    ['OPTIONS', cm, {}, 405],
    ['POST', cm, { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' }, 415],
    ['DELETE', '/api/v1/namespaces/default/status', {}, 405],
    ['GET', '/api/v1/namespaces/default/finalize', {}, 405],
  ];

  test.each(cases)('%s %s %j → %i', async (method, path, opts, code) => {
    const res = await client.request(method, path, opts);
    expect(res.status, res.text).toBe(code);
    if (code !== 404 || res.headers['content-type']?.startsWith('application/json')) expect(res.body.kind).toBe('Status');
    expect((await client.get('/healthz')).status).toBe(200);
  });

  test('an oversized body is 413 and the server keeps serving', async () => {
    const res = await client.request('POST', cm, {
      rawBody: JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(4 * 1024 * 1024) } }),
    });
    expect(res.status).toBe(413);
    expect((await client.get('/healthz')).status).toBe(200);
  });

  test('a client that connects and sends garbage does not disturb others', async () => {
    const socket = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    await closed;
    expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
  });
});
