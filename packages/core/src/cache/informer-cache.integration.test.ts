/**
 * The informer cache against the in-memory API server over real HTTPS: dropped watches, 410s (forced and from
 * compaction), pagination, bookmarks, a server restart, throwing handlers and lease release.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isNotFound } from '../client/errors.js';
import { DiscoveryRESTMapper } from '../client/rest-mapper.js';
import { Transport } from '../client/transport.js';
import type { KubeObject } from '../object/types.js';
import { InformerCache, type InformerCacheOptions } from './informer-cache.js';
import type { CacheTransport } from './resource-list-watcher.js';
import type { Informer, ResourceEventHandler } from './types.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const NS = 'test';
const WAIT = { timeout: 20_000, interval: 20 };

interface Env {
  server: ApiServer;
  transport: Transport;
  cache: InformerCache;
  /** Every list/watch query the cache sent, in order. */
  queries: Array<{ kind: 'list' | 'watch'; query: Record<string, unknown> }>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: { server?: Parameters<typeof startApiServer>[0]; cache?: Partial<InformerCacheOptions> } = {}): Promise<Env> {
  // Without the bootstrap objects unless asked: the cases watch ConfigMaps in every namespace and compare them all.
  const server = await startApiServer({ bootstrapPolicy: false, ...options.server });
  cleanups.push(() => server.close());
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  const transport = Transport.forConfig(kc);
  cleanups.push(() => transport.close());
  const queries: Env['queries'] = [];
  const recording: CacheTransport = {
    request: (req) => {
      queries.push({ kind: 'list', query: { ...req.query } });
      return transport.request(req);
    },
    watch: (req) => {
      queries.push({ kind: 'watch', query: { ...req.query } });
      return transport.watch(req);
    },
  };
  const cache = new InformerCache({
    transport: recording,
    restMapper: new DiscoveryRESTMapper(transport),
    watcher: { backoff: { initialMs: 20, maxMs: 200 } },
    ...options.cache,
  });
  const ac = new AbortController();
  const running = cache.start(ac.signal);
  cleanups.push(async () => {
    ac.abort();
    await running;
  });
  await transport.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  return { server, transport, cache, queries };
}

const cmPath = (name?: string) => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;

function createCM(env: Env, name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): Promise<KubeObject> {
  return env.transport.request<KubeObject>({
    method: 'POST',
    path: cmPath(),
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data },
  });
}
function updateCM(env: Env, name: string, data: Record<string, string>): Promise<KubeObject> {
  return env.transport.request<KubeObject>({
    method: 'PATCH',
    path: cmPath(name),
    body: { data },
    contentType: 'application/merge-patch+json',
  });
}
function deleteCM(env: Env, name: string): Promise<KubeObject> {
  return env.transport.request<KubeObject>({ method: 'DELETE', path: cmPath(name) });
}
/** name → resourceVersion, as the server has it now. */
async function serverState(env: Env): Promise<Record<string, string>> {
  const list = await env.transport.request<{ items: KubeObject[] }>({ method: 'GET', path: cmPath() });
  return Object.fromEntries(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
}
function informerState(informer: Informer): Record<string, string | undefined> {
  return Object.fromEntries(informer.list().map((o) => [o.metadata.name, o.metadata.resourceVersion]));
}

/** A handler that keeps its own view (name → rv) from the events it gets, and every rv it was told about. */
function mirror() {
  const view: Record<string, string | undefined> = {};
  const seen = new Set<string>();
  const deletes: Array<{ name: string; stateUnknown: boolean }> = [];
  const handler: ResourceEventHandler = {
    onAdd: (o) => {
      view[o.metadata.name ?? ''] = o.metadata.resourceVersion;
      seen.add(`${o.metadata.name}@${o.metadata.resourceVersion}`);
    },
    onUpdate: (_old, o) => {
      view[o.metadata.name ?? ''] = o.metadata.resourceVersion;
      seen.add(`${o.metadata.name}@${o.metadata.resourceVersion}`);
    },
    onDelete: (o, stateUnknown) => {
      delete view[o.metadata.name ?? ''];
      deletes.push({ name: o.metadata.name ?? '', stateUnknown });
    },
  };
  return { view, seen, deletes, handler };
}

describe('InformerCache against the in-memory API server', () => {
  it('loses nothing while the server drops every watch 100 times', async () => {
    const env = await setup({ cache: { watcher: { backoff: { initialMs: 5, maxMs: 20 } } } });
    const informer = await env.cache.getInformer(CM);
    const m = mirror();
    informer.addEventHandler(m.handler);
    await env.cache.waitForCacheSync(AbortSignal.timeout(10_000));
    const written: string[] = [];
    for (let i = 0; i < 100; i++) {
      await vi.waitFor(() => expect(env.server.stats().openWatches).toBeGreaterThanOrEqual(1), WAIT);
      env.server.faults.dropWatches();
      const name = `cm-${i % 10}`;
      const obj =
        i < 10
          ? await createCM(env, name, { i: String(i) })
          : i % 7 === 0
            ? await deleteCM(env, name).then(() => createCM(env, name, { i: String(i) }))
            : await updateCM(env, name, { i: String(i) });
      written.push(`${obj.metadata.name}@${obj.metadata.resourceVersion}`);
    }
    const expected = await serverState(env);
    await vi.waitFor(() => expect(informerState(informer)).toEqual(expected), WAIT);
    expect(m.view).toEqual(expected);
    // Watches resumed from the last resourceVersion, so every single write reached the handler.
    for (const w of written) expect(m.seen).toContain(w);
    expect(informer.status()).toMatchObject({ synced: true });
  });

  it('relists after a forced 410 and after compaction, and delivers what changed meanwhile', async () => {
    const env = await setup({ cache: { watcher: { backoff: { initialMs: 1_500, maxMs: 1_500, jitter: 0 } } } });
    const informer = await env.cache.getInformer(CM);
    const m = mirror();
    informer.addEventHandler(m.handler);
    await createCM(env, 'kept');
    await createCM(env, 'doomed-1');
    await createCM(env, 'doomed-2');
    await createCM(env, 'changed');
    await env.cache.waitForCacheSync(AbortSignal.timeout(10_000));
    await vi.waitFor(() => expect(Object.keys(m.view)).toHaveLength(4), WAIT);

    // 1. The reconnect after a drop is refused with 410: only a relist can tell what happened meanwhile.
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
    env.server.faults.failNextWatch(410);
    env.server.faults.dropWatches();
    await deleteCM(env, 'doomed-1');
    await updateCM(env, 'changed', { v: '2' });
    await createCM(env, 'born-1');
    let expected = await serverState(env);
    await vi.waitFor(() => expect(m.view).toEqual(expected), WAIT);
    expect(m.deletes).toContainEqual({ name: 'doomed-1', stateUnknown: true });

    // 2. The history the watch would resume from is compacted away: the server answers with an ERROR 410 event.
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
    env.server.faults.dropWatches();
    await deleteCM(env, 'doomed-2');
    await updateCM(env, 'changed', { v: '3' });
    await createCM(env, 'born-2');
    env.server.compact();
    expected = await serverState(env);
    await vi.waitFor(() => expect(m.view).toEqual(expected), WAIT);
    expect(informerState(informer)).toEqual(expected);
    expect(m.deletes).toContainEqual({ name: 'doomed-2', stateUnknown: true });
    expect(env.queries.filter((q) => q.kind === 'list' && q.query['continue'] === undefined).length).toBeGreaterThanOrEqual(3);
    // The relisted objects reach the handlers before the watch that follows the list is open: await it.
    await vi.waitFor(() => expect(informer.status()).toMatchObject({ phase: 'watching', failures: 0 }), WAIT);
  });

  it('keeps going when a handler throws on every event, without unhandled rejections', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(async () => {
      process.off('unhandledRejection', onUnhandled);
    });
    const env = await setup();
    const informer = await env.cache.getInformer(CM);
    const boom = () => {
      throw new Error('handler bug');
    };
    informer.addEventHandler({ onAdd: boom, onUpdate: boom, onDelete: boom });
    // The misuse under test: handlers that return rejected promises must not become unhandled rejections.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    informer.addEventHandler({ onAdd: async () => boom(), onUpdate: async () => boom() });
    const m = mirror();
    informer.addEventHandler(m.handler);
    for (let i = 0; i < 20; i++) await createCM(env, `cm-${i}`);
    for (let i = 0; i < 20; i += 2) await updateCM(env, `cm-${i}`, { x: 'y' });
    for (let i = 0; i < 20; i += 3) await deleteCM(env, `cm-${i}`);
    const expected = await serverState(env);
    await vi.waitFor(() => expect(m.view).toEqual(expected), WAIT);
    expect(informer.status().phase).toBe('watching');
    expect(informer.status().handlerFailures).toBeGreaterThanOrEqual(20 + 10 + 7);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('asks for 5,000 objects a page unless told otherwise', async () => {
    const env = await setup();
    await createCM(env, 'one');
    expect((await env.cache.list(CM, { namespace: NS })).items).toHaveLength(1);
    expect(env.queries.filter((q) => q.kind === 'list').map((q) => q.query['limit'])).toEqual([5000]);
  });

  it('lists across pages', async () => {
    const env = await setup({ cache: { watcher: { pageSize: 7 } } });
    for (let i = 0; i < 30; i++) await createCM(env, `cm-${String(i).padStart(2, '0')}`);
    const list = await env.cache.list(CM, { namespace: NS });
    expect(list.items.map((o) => o.metadata.name)).toEqual(Array.from({ length: 30 }, (_, i) => `cm-${String(i).padStart(2, '0')}`));
    const pages = env.queries.filter((q) => q.kind === 'list');
    expect(pages.map((q) => q.query['limit'])).toEqual([7, 7, 7, 7, 7]);
    expect(pages.slice(1).every((q) => typeof q.query['continue'] === 'string')).toBe(true);
    expect(list.items[0]?.apiVersion).toBe('v1');
    expect(list.items[0]?.kind).toBe('ConfigMap');
  });

  it('advances its resourceVersion with bookmarks, so a reconnect does not replay', async () => {
    const env = await setup({ server: { bookmarkIntervalMs: 50 } });
    const informer = await env.cache.getInformer(CM);
    await createCM(env, 'one');
    await env.cache.waitForCacheSync(AbortSignal.timeout(10_000));
    await vi.waitFor(() => expect(informer.list()).toHaveLength(1), WAIT);
    const objectRv = Number(informer.get(NS, 'one')?.metadata.resourceVersion);
    // Writes to another kind move the server's resourceVersion; bookmarks carry it to the ConfigMap watch.
    let secretRv = 0;
    for (let i = 0; i < 3; i++) {
      const s = await env.transport.request<KubeObject>({
        method: 'POST',
        path: `/api/v1/namespaces/${NS}/secrets`,
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } },
      });
      secretRv = Number(s.metadata.resourceVersion);
    }
    await vi.waitFor(() => expect(Number(informer.status().resourceVersion)).toBeGreaterThanOrEqual(secretRv), WAIT);
    const m = mirror();
    informer.addEventHandler(m.handler);
    env.server.faults.dropWatches();
    await vi.waitFor(() => expect(env.queries.filter((q) => q.kind === 'watch').length).toBeGreaterThanOrEqual(2), WAIT);
    const resumedAt = Number(env.queries.filter((q) => q.kind === 'watch').at(-1)?.query['resourceVersion']);
    expect(resumedAt).toBeGreaterThan(objectRv);
    expect(resumedAt).toBeGreaterThanOrEqual(secretRv);
    expect(env.queries.filter((q) => q.kind === 'watch').every((q) => q.query['allowWatchBookmarks'] === true)).toBe(true);
    expect(env.queries.filter((q) => q.kind === 'list')).toHaveLength(1);
  });

  it('backs off while the server is down, reports it, and recovers after a restart', async () => {
    const env = await setup();
    const informer = await env.cache.getInformer(CM);
    await createCM(env, 'before');
    await env.cache.waitForCacheSync(AbortSignal.timeout(10_000));
    await vi.waitFor(() => expect(informer.get(NS, 'before')).toBeDefined(), WAIT);
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
    await env.server.stop();
    await vi.waitFor(() => {
      const status = informer.status();
      expect(status.phase).toBe('backoff');
      expect(status.failures).toBeGreaterThanOrEqual(2);
      expect(status.lastError).toBeInstanceOf(Error);
    }, WAIT);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.get(NS, 'before')).toBeDefined();
    await env.server.restart();
    await vi.waitFor(() => expect(informer.status()).toMatchObject({ phase: 'watching', failures: 0 }), WAIT);
    expect(informer.status().lastError).toBeUndefined();
    await createCM(env, 'after');
    await vi.waitFor(() => expect(informer.get(NS, 'after')).toBeDefined(), WAIT);
  });

  it('stops the watch when the last lease is released', async () => {
    const env = await setup();
    const a = await env.cache.acquireInformer(CM);
    const b = await env.cache.acquireInformer(CM);
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
    a.release();
    expect(env.server.stats().openWatches).toBe(1);
    b.release();
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(0), WAIT);
  });

  it('a read rides on a leased watch without keeping it; with no watch running, a read keeps its informer for life', async () => {
    const env = await setup();
    await createCM(env, 'present');
    const lease = await env.cache.acquireInformer(CM);
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
    expect((await env.cache.get(CM, { namespace: NS, name: 'present' })).metadata.name).toBe('present');
    lease.release();
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(0), WAIT);

    expect((await env.cache.get(CM, { namespace: NS, name: 'present' })).metadata.name).toBe('present');
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
    const later = await env.cache.acquireInformer(CM);
    later.release();
    await createCM(env, 'after');
    await vi.waitFor(async () => expect((await env.cache.get(CM, { namespace: NS, name: 'after' })).metadata.name).toBe('after'), WAIT);
    expect(env.server.stats().openWatches).toBe(1);
  });

  it('a read whose watch ends before the informer synced starts an informer of its own', async () => {
    const env = await setup();
    await createCM(env, 'present');
    env.server.faults.setLatency(300);
    const lease = await env.cache.acquireInformer(CM);
    const read = env.cache.get(CM, { namespace: NS, name: 'present' });
    lease.release();
    expect((await read).metadata.name).toBe('present');
    env.server.faults.setLatency(0);
    await vi.waitFor(() => expect(env.server.stats().openWatches).toBe(1), WAIT);
  });

  it('answers field selectors from indexes added before and after objects arrived, and NotFound like the API', async () => {
    const env = await setup();
    await env.cache.indexField(CM, 'data.owner', (o) => [String((o['data'] as Record<string, string> | undefined)?.['owner'] ?? '')]);
    await createCM(env, 'a', { owner: 'x', tier: 'front' });
    await createCM(env, 'b', { owner: 'y', tier: 'front' });
    expect((await env.cache.list(CM, { fieldSelector: { 'data.owner': 'x' } })).items.map((o) => o.metadata.name)).toEqual(['a']);
    await env.cache.indexField(CM, 'data.tier', (o) => [String((o['data'] as Record<string, string> | undefined)?.['tier'] ?? '')]);
    await createCM(env, 'c', { owner: 'x', tier: 'back' });
    await vi.waitFor(async () => {
      expect((await env.cache.list(CM, { fieldSelector: 'data.tier=front' })).items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
      expect((await env.cache.list(CM, { fieldSelector: { 'data.owner': 'x' } })).items.map((o) => o.metadata.name)).toEqual(['a', 'c']);
    }, WAIT);
    const err = await env.cache.get(CM, { namespace: NS, name: 'missing' }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });
});
