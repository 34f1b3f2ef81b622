/**
 * Read-your-own-writes of the cache-backed client, over real HTTP to the in-memory server. The cache is a reader
 * frozen at a chosen moment (what an informer whose watch events have not arrived yet serves), so staleness is
 * exact, not a race; every request the server authorizes is recorded to show which reads reached it.
 */
import type { AuthorizationAttributes } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryTier, type Tier } from '../cluster/tier.test-util.js';
import { configMap, configMapKind } from '../testing/fixtures.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import { newDelegatingClient } from './delegating-client.js';
import { ApiError, isNotFound } from './errors.js';
import type { ObjectList, Reader } from './types.js';
import type { RecentWritesOptions } from './recent-writes.js';

let tier: Tier;
const seen: AuthorizationAttributes[] = [];

beforeAll(async () => {
  tier = await startMemoryTier({
    authorizer: (a) => {
      seen.push(a);
      return true;
    },
  });
});
afterAll(async () => {
  await tier?.close();
});

/** A cache that serves what it held when last `sync`ed. */
class FrozenCache implements Reader {
  private objects = new Map<string, KubeObject>();
  constructor(private readonly namespace: string) {}
  async sync(): Promise<void> {
    const { items } = await tier.direct.list(configMapKind, { namespace: this.namespace });
    this.objects = new Map(items.map((o) => [o.metadata.name ?? '', o]));
  }
  async get<T extends KubeObjectLike = KubeObject>(_kind: ObjectKind, key: ObjectKey): Promise<T> {
    const obj = this.objects.get(key.name);
    if (!obj)
      throw new ApiError(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: `${key.name} not found` });
    return structuredClone(obj) as unknown as T;
  }
  async list<T extends KubeObjectLike = KubeObject>(): Promise<ObjectList<T>> {
    return { metadata: {}, items: [...this.objects.values()] as unknown as T[] };
  }
}

async function setup(recentWrites?: RecentWritesOptions) {
  const ns = await tier.namespace();
  const cache = new FrozenCache(ns);
  await cache.sync();
  const client = newDelegatingClient({ reader: cache, client: tier.direct, ...(recentWrites ? { recentWrites } : {}) });
  const from = seen.length;
  /** The object reads (get) that reached the server since setup. */
  const liveGets = () => seen.slice(from).filter((a) => a.verb === 'get' && a.resource === 'configmaps').length;
  return { ns, cache, client, liveGets, key: (name: string) => ({ namespace: ns, name }) };
}

type ConfigMap = KubeObject & { data?: Record<string, string> };

describe('a cache-backed client reads its own writes', () => {
  it('reads an object it created from the server until the cache has it, then from the cache again', async () => {
    const { ns, cache, client, liveGets, key } = await setup();
    const created = await client.create(configMap('a', { k: 'v' }, ns));

    const read = await client.get<ConfigMap>(configMapKind, key('a'));
    expect(read.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(liveGets()).toBe(1);

    await cache.sync(); // the watch event arrived
    for (let i = 0; i < 3; i++) expect((await client.get<ConfigMap>(configMapKind, key('a'))).data).toEqual({ k: 'v' });
    expect(liveGets()).toBe(1);
  });

  it('after an update or a patch, reads the new version, not the cached one', async () => {
    const { ns, cache, client, key } = await setup();
    const cm = await client.create(configMap('b', { k: '1' }, ns));
    await cache.sync();
    await client.update({ ...cm, data: { k: '2' } });
    expect((await client.get<ConfigMap>(configMapKind, key('b'))).data).toEqual({ k: '2' });
    await client.patch(configMapKind, key('b'), { type: 'merge', body: { data: { k: '3' } } });
    expect((await client.get<ConfigMap>(configMapKind, key('b'))).data).toEqual({ k: '3' });
  });

  it('after a delete, a cache that still holds the object is not believed: the read is NotFound', async () => {
    const { ns, cache, client, liveGets, key } = await setup();
    await client.create(configMap('c', {}, ns));
    await cache.sync();
    await client.delete(configMapKind, key('c'));
    await expect(client.get(configMapKind, key('c'))).rejects.toSatisfy(isNotFound);
    expect(liveGets()).toBe(1);
    await cache.sync();
    await expect(client.get(configMapKind, key('c'))).rejects.toSatisfy(isNotFound);
    expect(liveGets()).toBe(1);
  });

  it('forgets a write after ttlMs, or when capacity newer writes push it out; a dry run is not a write', async () => {
    let now = 0;
    const { ns, client, liveGets, key } = await setup({ ttlMs: 1000, capacity: 2, now: () => now });
    await client.create(configMap('d', {}, ns));
    now = 1001;
    await expect(client.get(configMapKind, key('d'))).rejects.toSatisfy(isNotFound); // the stale cache answers
    expect(liveGets()).toBe(0);

    for (const name of ['e', 'f', 'g']) await client.create(configMap(name, {}, ns));
    await expect(client.get(configMapKind, key('e'))).rejects.toSatisfy(isNotFound); // pushed out by f and g
    await client.get(configMapKind, key('g'));
    expect(liveGets()).toBe(1);

    await client.create(configMap('h', {}, ns), { dryRun: true });
    await expect(client.get(configMapKind, key('h'))).rejects.toSatisfy(isNotFound);
    expect(liveGets()).toBe(1);
  });

  it("a cluster's client serves the reconcile after a write the written state, with no failed create", async () => {
    const ns = await tier.namespace();
    const cluster = tier.newCluster();
    await cluster.client.list(configMapKind, { namespace: ns }); // informer started and synced
    for (let i = 0; i < 20; i++) {
      const created = await cluster.client.create(configMap(`r${i}`, { i: String(i) }, ns));
      // Right after the write, before its watch event can have been handled: the read sees it.
      const read = await cluster.client.get<ConfigMap>(configMapKind, { namespace: ns, name: `r${i}` });
      expect(read.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    }
  });
});
