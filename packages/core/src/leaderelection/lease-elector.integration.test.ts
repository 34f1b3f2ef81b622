/** The elector against a real API protocol: Leases written through the API client to the in-memory API server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import { silentLogger } from '../log/logger.js';
import { LeaseElector, leaseKind, type Lease } from './lease-elector.js';

let server: ApiServer;
const clusters: KubeCluster[] = [];

beforeAll(async () => {
  server = await startApiServer();
});
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.close()));
  await server.close();
});

function client() {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  const c = newCluster(kc, { logger: silentLogger });
  clusters.push(c);
  return c.apiReader;
}

const timings = { namespace: 'default', leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 };

describe('LeaseElector against an API server', () => {
  it('creates, renews and releases a Lease the server accepts, and hands over on release', async () => {
    const name = `lease-${Date.now().toString(36)}`;
    const reader = client();
    const a = new LeaseElector(client(), { ...timings, name, identity: 'replica-a' });
    const b = new LeaseElector(client(), { ...timings, name, identity: 'replica-b' });
    const stop = new AbortController();
    const ta = (await a.acquire(stop.signal))!;
    const lease = await reader.get<Lease>(leaseKind, { namespace: 'default', name });
    expect(lease.spec?.holderIdentity).toBe('replica-a');
    expect(lease.spec?.renewTime).toMatch(/\.\d{6}Z$/);
    await expect
      .poll(async () => (await reader.get<Lease>(leaseKind, { namespace: 'default', name })).spec?.renewTime)
      .not.toBe(lease.spec?.renewTime);

    const campaign = b.acquire(stop.signal);
    const released = performance.now();
    await ta.release();
    expect(ta.signal.aborted).toBe(true);
    const tb = (await campaign)!;
    expect(performance.now() - released).toBeLessThan(timings.leaseDurationMs);
    const taken = await reader.get<Lease>(leaseKind, { namespace: 'default', name });
    expect(taken.spec?.holderIdentity).toBe('replica-b');
    expect(taken.spec?.leaseTransitions).toBe(1);
    await tb.release();
    expect((await reader.get<Lease>(leaseKind, { namespace: 'default', name })).spec?.holderIdentity ?? '').toBe('');
    stop.abort();
  });
});
