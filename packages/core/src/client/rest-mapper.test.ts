/**
 * DiscoveryRESTMapper over real HTTP against a discovery endpoint whose resource lists the test changes: lazy
 * per-group-version reads, caching, re-reading when a kind appears later, deduped concurrent lookups, reset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NoKindMatchError, isNoMatchError, isNotFound } from './errors.js';
import { DiscoveryRESTMapper } from './rest-mapper.js';
import { Transport } from './transport.js';

let server: Server;
let transport: Transport;
let requests: string[];
let lists: Record<string, unknown[]>;
let holdResponses: Promise<void> | undefined;
let failNext = 0;

beforeEach(async () => {
  requests = [];
  holdResponses = undefined;
  failNext = 0;
  lists = {
    '/api/v1': [
      { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['get'] },
      { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['get'] },
      { name: 'namespaces/status', namespaced: false, kind: 'Namespace', verbs: ['get'] },
      { name: 'namespaces/finalize', namespaced: false, kind: 'Namespace', verbs: ['update'] },
    ],
    '/apis/example.com/v1': [
      { name: 'widgets', namespaced: true, kind: 'Widget' },
      { name: 'widgets/status', namespaced: true, kind: 'Widget' },
    ],
  };
  // http.Server ignores a handler's promise; this one cannot reject (holdResponses only ever resolves).
  server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    requests.push(req.url ?? '');
    await holdResponses;
    if (failNext > 0) {
      failNext--;
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd is down' }));
      return;
    }
    const resources = lists[req.url ?? ''];
    if (!resources) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('404 page not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'APIResourceList', groupVersion: req.url, resources }));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: false },
    { name: 'u' },
  );
  transport = Transport.forConfig(kc);
});

afterEach(async () => {
  await transport.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('DiscoveryRESTMapper', () => {
  it('maps core and group kinds from the one group-version asked for, and caches it', async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    expect(await mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' })).toEqual({
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespaced: true,
      hasStatus: false,
    });
    expect(await mapper.mapping({ apiVersion: 'v1', kind: 'Namespace' })).toMatchObject({
      resource: 'namespaces',
      namespaced: false,
      hasStatus: true,
    });
    expect(await mapper.mapping({ apiVersion: 'example.com/v1', kind: 'Widget' })).toMatchObject({
      group: 'example.com',
      resource: 'widgets',
      hasStatus: true,
    });
    expect(requests).toEqual(['/api/v1', '/apis/example.com/v1']);
  });

  it('shares one discovery read among concurrent lookups', async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    let release!: () => void;
    holdResponses = new Promise((resolve) => (release = resolve));
    const lookups = Array.from({ length: 50 }, () => mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' }));
    await expect.poll(() => requests.length).toBe(1);
    release();
    const results = await Promise.all(lookups);
    expect(new Set(results.map((r) => r.resource))).toEqual(new Set(['configmaps']));
    expect(requests).toEqual(['/api/v1']);
  });

  it('re-reads a cached group-version once when a kind is missing, finding a CRD that appeared since', async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    await mapper.mapping({ apiVersion: 'example.com/v1', kind: 'Widget' });
    lists['/apis/example.com/v1']!.push({ name: 'gadgets', namespaced: false, kind: 'Gadget' });
    expect(await mapper.mapping({ apiVersion: 'example.com/v1', kind: 'Gadget' })).toMatchObject({ resource: 'gadgets' });
    expect(requests).toEqual(['/apis/example.com/v1', '/apis/example.com/v1']);
  });

  it('answers NoKindMatchError (not an object NotFound) for unknown kinds and group-versions, and finds a group served later', async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    const missingKind = await mapper.mapping({ apiVersion: 'v1', kind: 'Nope' }).catch((e: unknown) => e);
    expect(missingKind).toBeInstanceOf(NoKindMatchError);
    expect(isNoMatchError(missingKind)).toBe(true);
    expect(isNotFound(missingKind)).toBe(false);
    expect((missingKind as Error).message).toContain('no matches for kind "Nope" in version "v1"');
    // The first read of a group-version is fresh, so a miss does not read it twice.
    expect(requests).toEqual(['/api/v1']);

    await expect(mapper.mapping({ apiVersion: 'later.io/v1', kind: 'Thing' })).rejects.toSatisfy(isNoMatchError);
    lists['/apis/later.io/v1'] = [{ name: 'things', namespaced: true, kind: 'Thing' }];
    expect(await mapper.mapping({ apiVersion: 'later.io/v1', kind: 'Thing' })).toMatchObject({ resource: 'things' });
  });

  it('does not cache a failed read, and reset forgets everything', async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    failNext = 1;
    await expect(mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' })).rejects.toMatchObject({ code: 500, retryable: true });
    expect(await mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' })).toMatchObject({ resource: 'configmaps' });
    mapper.reset();
    await mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(requests).toEqual(['/api/v1', '/api/v1', '/api/v1']);
  });

  it("stops one caller's wait on abort without cancelling the shared read", async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    let release!: () => void;
    holdResponses = new Promise((resolve) => (release = resolve));
    const ac = new AbortController();
    const aborted = mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' }, { signal: ac.signal });
    const other = mapper.mapping({ apiVersion: 'v1', kind: 'ConfigMap' });
    ac.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    release();
    expect(await other).toMatchObject({ resource: 'configmaps' });
    expect(requests).toHaveLength(1);
  });

  it('rejects a malformed kind with a clear error', async () => {
    const mapper = new DiscoveryRESTMapper(transport);
    await expect(mapper.mapping({ apiVersion: '', kind: 'X' })).rejects.toThrow(/non-empty apiVersion and kind/);
  });
});
