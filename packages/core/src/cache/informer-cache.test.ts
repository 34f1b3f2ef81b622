/**
 * InformerCache bookkeeping (lifetimes, leases, indexes, selectors, errors) over an in-memory transport. The same
 * cache against a real HTTP API server, with faults, is in informer-cache.integration.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, isNotFound } from '../client/errors.js';
import type { KubeObject } from '../object/types.js';
import {
  CacheNotStartedError,
  CacheNotSyncedError,
  CacheStoppedError,
  IndexConflictError,
  InvalidListOptionsError,
  UnindexedFieldError,
} from './errors.js';
import { InformerCache } from './informer-cache.js';
import { configMaps, MemoryApi, namespaces } from './testing/memory-api.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const NS = { apiVersion: 'v1', kind: 'Namespace' };
const cm = (namespace: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels },
  data,
});

const stops: Array<() => Promise<void>> = [];
function startCache(cache: InformerCache): { stop: () => Promise<void>; done: Promise<void> } {
  const ac = new AbortController();
  const done = cache.start(ac.signal);
  const stop = async () => {
    ac.abort();
    await done;
  };
  stops.push(stop);
  return { stop, done };
}
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function setup() {
  const api = new MemoryApi();
  const cache = new InformerCache({ transport: api, restMapper: api });
  return { api, cache };
}

describe('InformerCache', () => {
  it('refuses reads before start, then serves get and list from a synced informer', async () => {
    const { api, cache } = setup();
    api.write(configMaps, cm('a', 'one', {}, { k: 'v' }));
    await expect(cache.get(CM, { namespace: 'a', name: 'one' })).rejects.toBeInstanceOf(CacheNotStartedError);
    startCache(cache);
    const got = await cache.get(CM, { namespace: 'a', name: 'one' });
    expect(got['data']).toEqual({ k: 'v' });
    expect(got.apiVersion).toBe('v1');
    // Reads are copies: changing one does not change the cache.
    (got['data'] as Record<string, string>)['k'] = 'mine';
    expect((await cache.get(CM, { namespace: 'a', name: 'one' }))['data']).toEqual({ k: 'v' });
    const missing = await cache.get(CM, { namespace: 'a', name: 'nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(isNotFound(missing)).toBe(true);
    expect((missing as ApiError).message).toMatch(/configmaps "nope" not found/);
    // A cluster-scoped kind ignores the namespace of the key.
    api.write(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
    expect((await cache.get(NS, { namespace: 'ignored', name: 'a' })).metadata.name).toBe('a');
  });

  it('lists by namespace, labels and fields, from indexes registered before or after objects arrived', async () => {
    const { api, cache } = setup();
    await cache.indexField(CM, 'data.owner', (o) => [String((o['data'] as Record<string, string>)?.['owner'] ?? '')].filter(Boolean));
    api.write(configMaps, cm('a', 'one', { app: 'web' }, { owner: 'x', tier: 'front' }));
    api.write(configMaps, cm('a', 'two', { app: 'db' }, { owner: 'y', tier: 'back' }));
    startCache(cache);
    api.write(configMaps, cm('b', 'three', { app: 'web' }, { owner: 'x', tier: 'back' }));
    await vi.waitFor(async () => expect((await cache.list(CM)).items).toHaveLength(3));
    await cache.indexField(CM, 'data.tier', (o) => [String((o['data'] as Record<string, string>)?.['tier'])]);
    api.write(configMaps, cm('b', 'four', {}, { tier: 'front' }));
    await vi.waitFor(async () => expect((await cache.list(CM)).items).toHaveLength(4));

    const names = async (options: Parameters<InformerCache['list']>[1]) =>
      (await cache.list(CM, options)).items.map((o) => o.metadata.name);
    expect(await names({ namespace: 'a' })).toEqual(['one', 'two']);
    expect(await names({ labelSelector: { app: 'web' } })).toEqual(['one', 'three']);
    expect(await names({ namespace: 'b', labelSelector: { app: 'web' } })).toEqual(['three']);
    expect(await names({ labelSelector: 'app in (web,db),app!=db' })).toEqual(['one', 'three']);
    expect(await names({ labelSelector: '!app' })).toEqual(['four']);
    await expect(cache.list(CM, { labelSelector: 'app in (' })).rejects.toThrow(InvalidListOptionsError);
    expect(await names({ fieldSelector: { 'data.owner': 'x' } })).toEqual(['one', 'three']);
    expect(await names({ fieldSelector: 'data.tier=front' })).toEqual(['one', 'four']);
    expect(await names({ fieldSelector: 'data.tier!=front,metadata.namespace=a' })).toEqual(['two']);
    expect(await names({ fieldSelector: 'metadata.name=four' })).toEqual(['four']);
    expect(await names({ namespace: 'a', fieldSelector: { 'data.owner': 'x' } })).toEqual(['one']);
    const list = await cache.list(CM);
    expect(list.kind).toBe('ConfigMapList');
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(100);

    await expect(cache.list(CM, { fieldSelector: { 'spec.nope': 'x' } })).rejects.toThrow(UnindexedFieldError);
    await expect(cache.list(CM, { fieldSelector: { 'spec.nope': 'x' } })).rejects.toThrow(/indexField\(kind, "spec.nope"/);
    await expect(cache.indexField(CM, 'data.owner', () => [])).rejects.toThrow(IndexConflictError);
    await expect(cache.indexField(CM, 'metadata.name', () => [])).rejects.toThrow(IndexConflictError);
    await expect(cache.list(CM, { continue: 'abc' })).rejects.toThrow(InvalidListOptionsError);
    await expect(cache.list(CM, { fieldSelector: 'nonsense' })).rejects.toThrow(InvalidListOptionsError);
  });

  it('starts informers asked for before start once it starts, and reports sync', async () => {
    const { api, cache } = setup();
    api.write(configMaps, cm('a', 'one'));
    const informer = await cache.getInformer(CM);
    expect(informer.status().phase).toBe('pending');
    const syncing = cache.waitForCacheSync(AbortSignal.timeout(5_000));
    expect(api.openWatches).toBe(0);
    startCache(cache);
    await expect(syncing).resolves.toBe(true);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.list()).toHaveLength(1);
    await vi.waitFor(() => expect(api.openWatches).toBe(1));
    expect(await cache.getInformer(CM)).toBe(informer);
  });

  it('shares one informer between leases and stops its watch when the last lease is released', async () => {
    const { api, cache } = setup();
    startCache(cache);
    const a = await cache.acquireInformer(CM);
    const b = await cache.acquireInformer(CM);
    expect(b.informer).toBe(a.informer);
    await vi.waitFor(() => expect(api.openWatches).toBe(1));
    a.release();
    a.release(); // idempotent: must not release b's hold
    expect(a.informer.status().phase).not.toBe('stopped');
    b.release();
    await vi.waitFor(() => expect(api.openWatches).toBe(0));
    await vi.waitFor(() => expect(a.informer.status().phase).toBe('stopped'));
    const c = await cache.acquireInformer(CM);
    expect(c.informer).not.toBe(a.informer);
    await vi.waitFor(() => expect(api.openWatches).toBe(1));
    c.release();
    await vi.waitFor(() => expect(api.openWatches).toBe(0));
  });

  it('keeps an informer that getInformer holds after its leases are released', async () => {
    const { api, cache } = setup();
    startCache(cache);
    const lease = await cache.acquireInformer(CM);
    const pinned = await cache.getInformer(CM);
    lease.release();
    await vi.waitFor(() => expect(pinned.status().phase).toBe('watching'));
    expect(api.openWatches).toBe(1);
  });

  it('keeps metadata-only and full informers apart', async () => {
    const { api, cache } = setup();
    api.write(configMaps, cm('a', 'one', { app: 'web' }, { big: 'x' }));
    startCache(cache);
    const meta = await cache.getInformer(CM, { metadataOnly: true });
    const full = await cache.getInformer(CM);
    expect(meta).not.toBe(full);
    await cache.waitForCacheSync(AbortSignal.timeout(5_000));
    expect(meta.get('a', 'one')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: expect.objectContaining({ name: 'one', labels: { app: 'web' } }),
    });
    expect(full.get('a', 'one')?.['data']).toEqual({ big: 'x' });
  });

  it('answers reads that alternate between kinds and modes each from its own informer', async () => {
    const { api, cache } = setup();
    api.write(configMaps, cm('a', 'one', {}, { big: 'x' }));
    api.write(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'one' } });
    startCache(cache);
    for (let round = 0; round < 2; round++) {
      expect((await cache.get(CM, { namespace: 'a', name: 'one' }))['data']).toEqual({ big: 'x' });
      expect((await cache.get(CM, { namespace: 'a', name: 'one' }, { metadataOnly: true }))['data']).toBeUndefined();
      expect((await cache.get(NS, { name: 'one' })).kind).toBe('Namespace');
      // A kind object with the same apiVersion and another kind is another kind.
      await expect(cache.get({ ...CM, kind: 'Namespace' }, { name: 'one' })).resolves.toMatchObject({ kind: 'Namespace' });
    }
  });

  it('starts an informer for a read whose previous read rode on a lease since released', async () => {
    const { api, cache } = setup();
    api.write(configMaps, cm('a', 'one'));
    startCache(cache);
    const lease = await cache.acquireInformer(CM);
    await vi.waitFor(() => expect(lease.informer.hasSynced()).toBe(true));
    await expect(cache.get(CM, { namespace: 'a', name: 'one' })).resolves.toMatchObject({ metadata: { name: 'one' } });
    lease.release();
    await vi.waitFor(() => expect(lease.informer.status().phase).toBe('stopped'));
    api.write(configMaps, cm('a', 'two'));
    await expect(cache.get(CM, { namespace: 'a', name: 'two' })).resolves.toMatchObject({ metadata: { name: 'two' } });
    expect(api.openWatches).toBe(1);
  });

  it('does not cache an unknown kind, so it is looked up again', async () => {
    const { api, cache } = setup();
    startCache(cache);
    const kind = { apiVersion: 'example.com/v1', kind: 'Widget' };
    await expect(cache.getInformer(kind)).rejects.toThrow(/no matches for kind/);
    await expect(cache.acquireInformer(kind)).rejects.toThrow(/no matches for kind/);
    expect(api.mappingCalls).toBe(2);
    await expect(cache.waitForCacheSync(AbortSignal.timeout(5_000))).resolves.toBe(true);
  });

  it('gives up a read whose signal aborts before the informer syncs', async () => {
    const api = new MemoryApi();
    // A list that never answers keeps the informer unsynced.
    api.request = (req) => new Promise((_, reject) => req.signal?.addEventListener('abort', () => reject(req.signal?.reason)));
    const cache = new InformerCache({ transport: api, restMapper: api });
    startCache(cache);
    const ac = new AbortController();
    const read = cache.get(CM, { namespace: 'a', name: 'x' }, { signal: ac.signal });
    ac.abort();
    await expect(read).rejects.toBeInstanceOf(CacheNotSyncedError);
    const ac2 = new AbortController();
    const syncing = cache.waitForCacheSync(ac2.signal);
    ac2.abort();
    await expect(syncing).resolves.toBe(false);
  });

  it('stops every informer when its signal aborts, then refuses new ones', async () => {
    const { api, cache } = setup();
    const { stop, done } = startCache(cache);
    const informer = await cache.getInformer(CM);
    await cache.getInformer(NS);
    await vi.waitFor(() => expect(api.openWatches).toBe(2));
    await stop();
    await done;
    expect(api.openWatches).toBe(0);
    expect(informer.status().phase).toBe('stopped');
    await expect(cache.getInformer(CM)).rejects.toBeInstanceOf(CacheStoppedError);
    await expect(cache.start(new AbortController().signal)).rejects.toThrow(/already started/);
  });
});
