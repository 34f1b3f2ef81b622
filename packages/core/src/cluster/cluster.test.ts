/** newCluster over the in-memory API server: reads and writes, a running cache, and a stop that closes every socket. */
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { configMap, configMaps, kubeconfigOf, openSockets } from '../controller/fleet.test-util.js';
import { ClusterAlreadyStartedError } from './errors.js';
import { newCluster } from './cluster.js';

const servers: ApiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(): Promise<ApiServer> {
  // Sockets of an earlier test's server may still be closing; start from none so counts below mean something.
  await expect.poll(() => openSockets()).toBe(0);
  // Without the bootstrap objects: the test lists ConfigMaps in every namespace and expects only its own.
  const s = await startApiServer({ bootstrapPolicy: false });
  servers.push(s);
  return s;
}

describe('newCluster', () => {
  it('serves the client and the cache over one connection pool, and closes it when stopped', async () => {
    const s = await server();
    const socketsBefore = openSockets();
    const cluster = newCluster(kubeconfigOf(s), { name: 'east' });
    expect(cluster.name).toBe('east');
    expect(cluster.fieldIndexer).toBe(cluster.cache);
    const stop = new AbortController();
    const running = cluster.start(stop.signal);
    await cluster.client.create(configMap('a', { k: 'v' }));
    const informer = await cluster.cache.getInformer(configMaps);
    expect(await cluster.waitForCacheSync(AbortSignal.timeout(5_000))).toBe(true);
    await expect.poll(() => informer.list().map((o) => o.metadata.name)).toEqual(['a']);
    expect((await cluster.cache.get(configMaps, { namespace: 'default', name: 'a' })).metadata.name).toBe('a');
    await expect.poll(() => s.stats().openWatches).toBe(1);
    expect(openSockets()).toBeGreaterThan(socketsBefore);
    for (let i = 0; i < 20; i++) await cluster.apiReader.get(configMaps, { namespace: 'default', name: 'a' });
    // One pool for requests and one for watches, shared by client, discovery and cache: a handful of connections.
    expect(s.stats().connections).toBeLessThanOrEqual(3);

    stop.abort();
    await running;
    await expect.poll(() => s.stats().openWatches).toBe(0);
    await expect.poll(() => openSockets()).toBeLessThanOrEqual(socketsBefore);
    await expect(cluster.start(new AbortController().signal)).rejects.toBeInstanceOf(ClusterAlreadyStartedError);
    await expect(cluster.apiReader.get(configMaps, { namespace: 'default', name: 'a' })).rejects.toThrow();
  });

  it('defaults its name to the kubeconfig cluster and closes a never-started cluster on request', async () => {
    const s = await server();
    const socketsBefore = openSockets();
    const kc = kubeconfigOf(s);
    const cluster = newCluster(kc);
    expect(cluster.name).toBe(kc.getCurrentCluster()?.name);
    await cluster.apiReader.list(configMaps);
    expect(openSockets()).toBeGreaterThan(socketsBefore);
    await cluster.close();
    await cluster.close();
    await expect.poll(() => openSockets()).toBeLessThanOrEqual(socketsBefore);
  });
});
