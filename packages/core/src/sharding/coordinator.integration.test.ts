/**
 * The shard coordinator against real Leases on the in-memory API server, with a recording engage function in place
 * of the manager: per-cluster independence (upstream defect 1), losing a fence disengages at once and the fence is
 * taken back after the thief's claim expires, fences are held back until close at shutdown, and a fence whose
 * cluster's work does not stop is left to expire rather than released.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import type { Cluster } from '../cluster/types.js';
import { LeaseElector, leaseKind, type Lease } from '../leaderelection/lease-elector.js';
import { formatMicroTime } from '../leaderelection/micro-time.js';
import { createLogger, silentLogger, type Logger } from '../log/logger.js';
import type { Aware } from '../multicluster/types.js';
import { ShardCoordinator } from './coordinator.js';
import { fenceLeaseName } from './fence.js';
import { resolveSharding } from './options.js';

let server: ApiServer;
let tool: KubeCluster;
const stops: AbortController[] = [];
const runs: Promise<void>[] = [];
const coordinators: ShardCoordinator[] = [];

beforeAll(async () => {
  server = await startApiServer();
  tool = newCluster(kubeconfig(), { logger: silentLogger });
});
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.all(runs.splice(0));
  await Promise.all(coordinators.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await tool.close();
  await server.close();
});

function kubeconfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  return kc;
}

const fakeCluster = (name: string) => ({ name }) as unknown as Cluster;
let seq = 0;

/** A coordinator whose onward engagements are recorded as name → signal. */
function coordinator(id: string, extra: { waitForDisengaged?: Aware['waitForDisengaged']; logger?: Logger } = {}) {
  const group = `co${++seq}`;
  const engaged = new Map<string, AbortSignal>();
  const onward: Aware = {
    engage: async (signal, name) => {
      engaged.set(name, signal);
    },
  };
  if (extra.waitForDisengaged) onward.waitForDisengaged = extra.waitForDisengaged;
  const c = new ShardCoordinator(
    tool.apiReader,
    resolveSharding(
      {
        groupName: group,
        id,
        timings: {
          peerLeaseDurationMs: 2000,
          peerRenewIntervalMs: 200,
          fenceLeaseDurationMs: 2000,
          fenceRenewDeadlineMs: 1500,
          fenceRetryPeriodMs: 200,
          recomputeIntervalMs: 500,
        },
      },
      'default',
    ),
    onward,
    extra.logger ?? silentLogger,
  );
  coordinators.push(c);
  const stop = new AbortController();
  stops.push(stop);
  runs.push(c.start(stop.signal));
  const live = () =>
    [...engaged]
      .filter(([, s]) => !s.aborted)
      .map(([n]) => n)
      .sort();
  return { c, group, engaged, live, stop };
}

describe('ShardCoordinator', () => {
  it('removing one cluster leaves the others engaged (each engagement hangs on its own provider signal)', async () => {
    const { c, group, live } = coordinator('solo');
    const providers = new Map(['x', 'y', 'z'].map((n) => [n, new AbortController()]));
    for (const [n, ac] of providers) await c.engage(ac.signal, n, fakeCluster(n));
    await expect.poll(live, { timeout: 5000 }).toEqual(['x', 'y', 'z']);
    providers.get('y')!.abort();
    await expect.poll(live, { timeout: 5000 }).toEqual(['x', 'z']);
    // Several later passes (peer refreshes, periodic recomputes) still leave x and z alone.
    await expect
      .poll(
        async () => {
          const lease = await tool.apiReader.get<Lease>(leaseKind, { namespace: 'default', name: fenceLeaseName(group, 'y') });
          return lease.spec?.holderIdentity ?? '';
        },
        { timeout: 5000 },
      )
      .toBe('');
    expect(live()).toEqual(['x', 'z']);
    expect(c.owns('x') && c.owns('z') && !c.owns('y')).toBe(true);
  });

  it('disengages at once when another holder takes its fence, and takes it back once that claim expires', async () => {
    const { c, group, engaged, live } = coordinator('victim');
    const provider = new AbortController();
    await c.engage(provider.signal, 'm', fakeCluster('m'));
    await expect.poll(live, { timeout: 5000 }).toEqual(['m']);
    const first = engaged.get('m')!;
    const key = { namespace: 'default', name: fenceLeaseName(group, 'm') };
    const lease = await tool.apiReader.get<Lease>(leaseKind, key);
    await tool.apiReader.update<Lease>({
      ...lease,
      spec: { ...lease.spec, holderIdentity: 'thief', leaseDurationSeconds: 2, renewTime: formatMicroTime(new Date()) },
    });
    const stolen = performance.now();
    await expect.poll(() => first.aborted, { timeout: 3000 }).toBe(true);
    expect(c.owns('m')).toBe(false);
    // The thief never renews: after its 2 s claim the fence is ours again and the cluster engaged anew.
    await expect.poll(() => live(), { timeout: 6000 }).toEqual(['m']);
    expect(performance.now() - stolen).toBeGreaterThan(1900);
    expect(engaged.get('m')).not.toBe(first);
    expect((await tool.apiReader.get<Lease>(leaseKind, key)).spec?.holderIdentity).toBe('victim');
  });

  it('keeps fences held while shutting down until close, then releases them and withdraws', async () => {
    const { c, group, live, stop } = coordinator('closer');
    const provider = new AbortController();
    await c.engage(provider.signal, 'k', fakeCluster('k'));
    await expect.poll(live, { timeout: 5000 }).toEqual(['k']);
    const key = { namespace: 'default', name: fenceLeaseName(group, 'k') };
    c.stop();
    stop.abort();
    provider.abort(); // the provider removes its clusters at shutdown
    expect(live()).toEqual([]);
    await Promise.all(runs);
    // Ownership passes run on microtasks; let them decide before looking at the Lease.
    await new Promise((resolve) => setImmediate(resolve));
    expect((await tool.apiReader.get<Lease>(leaseKind, key)).spec?.holderIdentity).toBe('closer');
    await c.close();
    expect((await tool.apiReader.get<Lease>(leaseKind, key)).spec?.holderIdentity ?? '').toBe('');
    await expect(tool.apiReader.get<Lease>(leaseKind, { namespace: 'default', name: c.peers.leaseName })).rejects.toThrow(/not found/i);
  });

  it("leaves the fence to expire, unreleased, when the cluster's work does not stop within the renew deadline", async () => {
    const warnings: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (_l, msg) => warnings.push(msg) });
    // An Aware whose work for the cluster never stops (a reconciler ignoring its signal): it only gives up on abort.
    const never = (signal: AbortSignal) =>
      new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
    const { c, group, live } = coordinator('stuck', { waitForDisengaged: never, logger });
    const provider = new AbortController();
    await c.engage(provider.signal, 's', fakeCluster('s'));
    await expect.poll(live, { timeout: 5000 }).toEqual(['s']);
    const removed = performance.now();
    provider.abort();
    expect(live()).toEqual([]);
    await expect.poll(() => warnings.filter((w) => w.includes('not releasing its fence')), { timeout: 5000 }).toHaveLength(1);
    expect(performance.now() - removed).toBeGreaterThan(1400); // waited the renew deadline first
    const key = { namespace: 'default', name: fenceLeaseName(group, 's') };
    expect((await tool.apiReader.get<Lease>(leaseKind, key)).spec?.holderIdentity).toBe('stuck');
    // Nobody renews it any more, so another candidate gets it once the 2 s claim has expired on its own clock.
    const taker = new LeaseElector(tool.apiReader, {
      ...key,
      identity: 'taker',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 200,
      logger: silentLogger,
    });
    const abandoned = performance.now();
    const stop = new AbortController();
    stops.push(stop);
    const term = await taker.acquire(stop.signal);
    expect(term).toBeDefined();
    expect(performance.now() - abandoned).toBeGreaterThan(1500);
    await term!.release();
  });
});
