/**
 * An informer whose API server went away and came back, over real HTTPS: it is watching again within one recovery
 * probe of the server answering, although its backoff grew to a minute during the outage.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DiscoveryRESTMapper } from '../client/rest-mapper.js';
import { Transport } from '../client/transport.js';
import { InformerCache } from './informer-cache.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer({ name: 'comes-back' });
});
afterAll(async () => {
  await server.close();
});

it('resumes within a probe period of the server answering again, whatever backoff the outage built up', async () => {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  const transport = Transport.forConfig(kc, { recoveryProbeMs: 300, connectTimeoutMs: 1_000 });
  // Backoff that reaches a minute after two failures: without the probe, the informers would sleep through the return.
  const cache = new InformerCache({
    transport,
    restMapper: new DiscoveryRESTMapper(transport),
    watcher: { backoff: { initialMs: 500, factor: 120, maxMs: 60_000, jitter: 0 } },
  });
  const stop = new AbortController();
  const running = cache.start(stop.signal);
  try {
    const configMaps = await cache.getInformer(CM);
    const secrets = await cache.getInformer(SECRET);
    await expect.poll(() => configMaps.hasSynced() && secrets.hasSynced(), { timeout: 10_000 }).toBe(true);

    await server.stop();
    // Both informers have failed at least twice: their next retries are a minute away.
    await expect
      .poll(() => Math.min(configMaps.status().failures, secrets.status().failures), { timeout: 15_000, interval: 50 })
      .toBeGreaterThanOrEqual(2);

    await server.restart();
    const back = performance.now();
    await expect
      .poll(() => configMaps.status().phase === 'watching' && secrets.status().phase === 'watching', { timeout: 5_000, interval: 20 })
      .toBe(true);
    expect(performance.now() - back).toBeLessThan(5_000);
    expect(configMaps.status().failures).toBe(0);
  } finally {
    stop.abort();
    await running;
    await transport.close();
  }
}, 60_000);
