/** Peer discovery against the in-memory API server: real Leases written and listed through the API client. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import { leaseKind, type Lease } from '../leaderelection/lease-elector.js';
import { formatMicroTime } from '../leaderelection/micro-time.js';
import { silentLogger } from '../log/logger.js';
import { PeerRegistry, groupLabel, roleLabel, weightAnnotation } from './peers.js';

let server: ApiServer;
const clusters: KubeCluster[] = [];
const stops: AbortController[] = [];
const runs: Promise<void>[] = [];

beforeAll(async () => {
  server = await startApiServer();
});
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.all(runs.splice(0));
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

let seq = 0;
function registry(group: string, id: string, weight = 1) {
  return new PeerRegistry({
    client: client(),
    namespace: 'default',
    group,
    prefix: group,
    self: { id, weight },
    leaseDurationMs: 2000,
    renewIntervalMs: 200,
    logger: silentLogger,
  });
}
function run(r: PeerRegistry): AbortController {
  const ac = new AbortController();
  stops.push(ac);
  runs.push(r.run(ac.signal));
  return ac;
}
const ids = (r: PeerRegistry) => r.peers().map((p) => `${p.id}=${p.weight}`);

describe('PeerRegistry', () => {
  it('announces each replica with its weight, lists live peers, and drops one that withdraws at once', async () => {
    const group = `g${++seq}`;
    const a = registry(group, 'replica-a', 1);
    const b = registry(group, 'Replica_B', 3);
    run(a);
    const stopB = run(b);
    await expect.poll(() => ids(a), { timeout: 5000 }).toEqual(['Replica_B=3', 'replica-a=1']);
    await expect.poll(() => ids(b), { timeout: 5000 }).toEqual(['Replica_B=3', 'replica-a=1']);

    const lease = await client().get<Lease>(leaseKind, { namespace: 'default', name: b.leaseName });
    expect(lease.metadata.labels).toMatchObject({ [groupLabel]: group, [roleLabel]: 'peer' });
    expect(lease.metadata.annotations?.[weightAnnotation]).toBe('3');
    expect(lease.spec?.holderIdentity).toBe('Replica_B');

    stopB.abort();
    await b.withdraw(2000);
    const withdrawn = performance.now();
    await expect.poll(() => ids(a), { timeout: 5000 }).toEqual(['replica-a=1']);
    // Seen at the next refresh, well before the 2 s TTL would have expired it.
    expect(performance.now() - withdrawn).toBeLessThan(1500);
  });

  it('expires a peer that stops renewing after its TTL, and ignores leftovers and other groups', async () => {
    const group = `g${++seq}`;
    const reader = client();
    const old = new Date(Date.now() - 60_000);
    await reader.create<Lease>({
      apiVersion: leaseKind.apiVersion,
      kind: leaseKind.kind,
      metadata: { namespace: 'default', name: `${group}-peer-dead`, labels: { [groupLabel]: group, [roleLabel]: 'peer' } },
      spec: { holderIdentity: 'dead', leaseDurationSeconds: 2, renewTime: formatMicroTime(old) },
    });
    await reader.create<Lease>({
      apiVersion: leaseKind.apiVersion,
      kind: leaseKind.kind,
      metadata: {
        namespace: 'default',
        name: `${group}-peer-bad`,
        labels: { [groupLabel]: group, [roleLabel]: 'peer' },
        annotations: { [weightAnnotation]: 'lots' },
      },
      spec: { holderIdentity: 'bad-weight', leaseDurationSeconds: 30, renewTime: formatMicroTime(new Date()) },
    });
    const a = registry(group, 'a');
    const c = registry(group, 'c');
    const other = registry(`${group}x`, 'other');
    run(a);
    run(other);
    const stopC = run(c);
    const changes: string[][] = [];
    a.onChange(() => changes.push(ids(a)));
    await expect.poll(() => ids(a), { timeout: 5000 }).toEqual(['a=1', 'c=1']);
    expect(await a.waitForPeers(new AbortController().signal)).toBe(true);

    stopC.abort(); // crashed: no withdraw
    const stopped = performance.now();
    await expect.poll(() => ids(a), { timeout: 6000 }).toEqual(['a=1']);
    const took = performance.now() - stopped;
    expect(took).toBeGreaterThan(1000); // it waited for the TTL …
    expect(took).toBeLessThan(4500); // … and not much longer
    expect(changes.at(-1)).toEqual(['a=1']);
  });
});
