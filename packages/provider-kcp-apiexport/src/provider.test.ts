import { KubeConfig } from '@kubernetes/client-node';
import type { Aware, Cluster, KubeObject, ProviderContext } from '@multicluster-runtime/core';
import { isNotFound, silentLogger } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import type { KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ApiExportProvider } from './provider.js';
import { bindingIsReady } from './endpoint.js';
import { EndpointStartError } from './errors.js';
import { THING, thingSchema } from './thing-schema.test-util.js';

/** The machine is shared and busy: convergence gets seconds, not vitest's default 1 s. */
const POLL = { timeout: 10_000 };
const thing = (name: string, color: string): KubeObject => ({ ...THING, metadata: { name, namespace: 'default', labels: { color } } });

/** Records engagements; a cluster leaves when its engagement signal aborts. */
class RecordingAware implements Aware {
  readonly engaged = new Map<string, Cluster>();
  readonly history: string[] = [];
  engage(signal: AbortSignal, name: string, cluster: Cluster): Promise<void> {
    this.engaged.set(name, cluster);
    this.history.push(`+${name}`);
    signal.addEventListener(
      'abort',
      () => {
        if (this.engaged.get(name) === cluster) this.engaged.delete(name);
        this.history.push(`-${name}`);
      },
      { once: true },
    );
    return Promise.resolve();
  }

  /** A start context engaging through this Aware: no host cluster unless given, silent logs, no metrics. */
  context(extra: Partial<ProviderContext> = {}): ProviderContext {
    return { aware: this, logger: silentLogger, metrics: noopMetrics, ...extra };
  }
}

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

describe('ApiExportProvider against the fake kcp', () => {
  let kcp: KcpServer;
  let providerWs: KcpWorkspace;
  let a: KcpWorkspace;
  let b: KcpWorkspace;
  let unbound: KcpWorkspace;
  const running: { stop: AbortController; done: Promise<void> }[] = [];

  beforeAll(async () => {
    kcp = await startKcpServer({ shards: ['one', 'two'] });
    providerWs = await kcp.createWorkspace('root:provider');
    a = await kcp.createWorkspace('root:consumer-a', { shard: 'one' });
    b = await kcp.createWorkspace('root:consumer-b', { shard: 'two' });
    unbound = await kcp.createWorkspace('root:unbound', { shard: 'one' });
    await kcp.createExport(providerWs, { name: 'example.com', schemas: [thingSchema] });
    await kcp.bind(a, { exportPath: 'root:provider', exportName: 'example.com' });
    await kcp.bind(b, { exportPath: 'root:provider', exportName: 'example.com' });
  });
  afterEach(async () => {
    for (const r of running.splice(0)) {
      r.stop.abort();
      await r.done;
    }
  });
  afterAll(async () => {
    await kcp?.close();
  });

  function startProvider(opts: Partial<ConstructorParameters<typeof ApiExportProvider>[0]> = {}) {
    const provider = new ApiExportProvider({
      endpointSliceName: 'example.com',
      exportConfig: kubeConfig(kcp.kubeconfig(providerWs)),
      retry: { initialMs: 50, maxMs: 200 },
      ...opts,
    });
    const aware = new RecordingAware();
    const stop = new AbortController();
    const done = provider.start(stop.signal, aware.context());
    running.push({ stop, done });
    return { provider, aware, stop, done };
  }

  test('engages each Ready-bound logical cluster through its shard endpoint, never the unbound ones', async () => {
    const { provider, aware } = startProvider();
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    expect(provider.endpoints()).toEqual(['one', 'two'].map((s) => kcp.endpointUrl(s, providerWs, 'example.com')));
    expect([...aware.engaged.keys()].sort()).toEqual([a.name, b.name].sort());
    expect(provider.names()).not.toContain(unbound.name);
    const clusterA = await provider.get(a.name);
    expect(clusterA.config.getCurrentCluster()?.server).toBe(`${kcp.endpointUrl('one', providerWs, 'example.com')}/clusters/${a.name}`);
  });

  test("a shard that stops answering shows in its clusters' health and metrics, the other shard's stay reachable", async () => {
    const reachable = new Map<string, boolean>();
    const metrics = { ...noopMetrics, clusterReachable: (cluster: string, up: boolean) => void reachable.set(cluster, up) };
    const { provider } = startProvider({ healthCheck: { intervalMs: 100, timeoutMs: 2_000 }, metrics });
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    expect(provider.status(a.name)?.health).toMatchObject({ reachable: true });
    kcp.stopShard('one');
    try {
      await expect.poll(() => provider.status(a.name)?.health?.reachable, POLL).toBe(false);
      expect(provider.status(a.name)?.health?.lastError).toMatch(/503|unavailable/i);
      expect(provider.status(a.name)?.state).toBe('engaged');
      expect(reachable.get(a.name)).toBe(false);
      expect(provider.status(b.name)?.health?.reachable).toBe(true);
      expect(reachable.get(b.name)).not.toBe(false);
    } finally {
      kcp.startShard('one');
    }
    await expect.poll(() => provider.status(a.name)?.health?.reachable, POLL).toBe(true);
    expect(reachable.get(a.name)).toBe(true);
  });

  test('each cluster writes to its own logical cluster and reads and hears only its own objects', async () => {
    const { provider } = startProvider();
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    const clusterA = await provider.get(a.name);
    const clusterB = await provider.get(b.name);
    const eventsA: string[] = [];
    const informerA = await clusterA.cache.getInformer(THING);
    informerA.addEventHandler({ onAdd: (o) => eventsA.push(`${o.metadata.annotations?.['kcp.io/cluster']}/${o.metadata.name}`) });

    await clusterB.client.create(thing('same', 'blue'));
    await clusterA.client.create(thing('same', 'gray'));
    await clusterA.client.create(thing('only-a', 'gray'));
    await expect.poll(() => eventsA.length, POLL).toBe(2);
    expect(eventsA.sort()).toEqual([`${a.name}/only-a`, `${a.name}/same`]);

    await expect.poll(async () => (await clusterB.cache.list(THING)).items.map((o) => o.metadata.name), POLL).toEqual(['same']);
    const listA = await clusterA.cache.list(THING, { namespace: 'default' });
    expect(listA.items.map((o) => `${o.metadata.name}:${o.metadata.labels?.['color']}`)).toEqual(['only-a:gray', 'same:gray']);
    expect((await clusterB.cache.get<KubeObject>(THING, { namespace: 'default', name: 'same' })).metadata.labels).toEqual({
      color: 'blue',
    });
    await expect(clusterB.cache.get(THING, { namespace: 'default', name: 'only-a' })).rejects.toSatisfy(isNotFound);
    expect(
      informerA
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['only-a', 'same']);
  });

  test('objectToWatch, isReady and extractUrls choose the members: clusters with a member Thing, on shard one only', async () => {
    const oneOnly = (slice: KubeObject | undefined) =>
      ((slice as { status?: { endpoints?: { url: string }[] } } | undefined)?.status?.endpoints ?? [])
        .map((e) => e.url)
        .filter((u) => u.includes('/shards/one/'));
    const { provider } = startProvider({
      objectToWatch: THING,
      isReady: (o) => o.metadata.labels?.['member'] === 'yes',
      extractUrls: oneOnly,
    });
    await expect.poll(() => provider.endpoints(), POLL).toEqual([kcp.endpointUrl('one', providerWs, 'example.com')]);
    expect(provider.names()).toEqual([]);
    const transports: Transport[] = [];
    const direct = (ws: KcpWorkspace) => {
      const transport = Transport.forConfig(kubeConfig(kcp.kubeconfig(ws)));
      transports.push(transport);
      return new ApiClient(transport, new DiscoveryRESTMapper(transport));
    };
    const [inA, inB] = [direct(a), direct(b)];
    const member = { ...THING, metadata: { name: 'member', namespace: 'default', labels: { member: 'yes' } } };
    await inA.create(member);
    await inB.create(member); // b lives on shard two, which is not followed
    await expect.poll(() => provider.names(), POLL).toEqual([a.name]);
    await inA.delete(THING, { namespace: 'default', name: 'member' });
    await expect.poll(() => provider.names(), POLL).toEqual([]);
    await inB.delete(THING, { namespace: 'default', name: 'member' });
    await Promise.all(transports.map((t) => t.close()));
  });

  test('field indexes registered through the provider serve scoped lists', async () => {
    const { provider } = startProvider();
    await provider.indexField(THING, 'color', (o) => [o.metadata.labels?.['color'] ?? '']);
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    const clusterA = await provider.get(a.name);
    await expect
      .poll(async () => (await clusterA.cache.list(THING, { fieldSelector: { color: 'gray' } })).items.map((o) => o.metadata.name), POLL)
      .toEqual(['only-a', 'same']);
    expect((await clusterA.cache.list(THING, { fieldSelector: 'color=blue' })).items).toEqual([]);
  });

  test('looks clusters up by workspace path', async () => {
    const { provider } = startProvider();
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    expect((await provider.get('root:consumer-a')).name).toBe(a.name);
    expect(provider.clusterNameForPath('root:consumer-b')).toBe(b.name);
    await expect(provider.get('root:unbound')).rejects.toThrow(/not found/i);
  });

  test('a new binding engages, an unbinding disengages and a shard with no binding left leaves the slice', async () => {
    const { provider, aware } = startProvider();
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    const c = await kcp.createWorkspace('root:consumer-c', { shard: 'two' });
    await kcp.bind(c, { exportPath: 'root:provider', exportName: 'example.com' });
    await expect.poll(() => provider.names(), POLL).toContain(c.name);
    await expect.poll(() => provider.status(c.name), POLL).toMatchObject({ state: 'engaged', failures: 0 });
    expect([...provider.statuses().keys()].sort()).toEqual([a.name, b.name, c.name].sort());
    expect(provider.status(unbound.name)).toBeUndefined();
    await kcp.unbind(c, 'example.com');
    await expect.poll(() => provider.names(), POLL).not.toContain(c.name);
    expect(aware.history).toContain(`-${c.name}`);
    await expect.poll(() => provider.status(c.name), POLL).toBeUndefined();

    await kcp.unbind(b, 'example.com');
    await expect.poll(() => provider.endpoints(), POLL).toEqual([kcp.endpointUrl('one', providerWs, 'example.com')]);
    expect(provider.names()).toEqual([a.name]);
    await kcp.bind(b, { exportPath: 'root:provider', exportName: 'example.com' });
    await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    expect(provider.endpoints()).toHaveLength(2);
  });

  test('a binding that stops counting as Ready disengages its cluster, and engages it again when it counts again', async () => {
    const d = await kcp.createWorkspace('root:consumer-d', { shard: 'one' });
    await kcp.bind(d, { exportPath: 'root:provider', exportName: 'example.com' });
    const { provider, aware } = startProvider({ isReady: (b) => bindingIsReady(b) && b.metadata.labels?.['paused'] !== 'true' });
    await expect.poll(() => provider.names(), POLL).toContain(d.name);
    const transport = Transport.forConfig(kubeConfig(kcp.kubeconfig(d)));
    try {
      const client = new ApiClient(transport, new DiscoveryRESTMapper(transport));
      const binding = { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIBinding' };
      await client.patch(binding, { name: 'example.com' }, { type: 'merge', body: { metadata: { labels: { paused: 'true' } } } });
      await expect.poll(() => provider.names(), POLL).not.toContain(d.name);
      expect(aware.history.filter((h) => h.endsWith(d.name))).toEqual([`+${d.name}`, `-${d.name}`]);
      await client.patch(binding, { name: 'example.com' }, { type: 'merge', body: { metadata: { labels: { paused: 'false' } } } });
      await expect.poll(() => provider.names(), POLL).toContain(d.name);
    } finally {
      await transport.close();
      await kcp.unbind(d, 'example.com');
    }
  });

  test('an endpoint that cannot list bindings yet is retried with backoff until it can', async () => {
    let deny = true;
    kcp.server.setAuthorizer(
      (attrs) => !(deny && attrs.resource === 'apibindings' && attrs.verb === 'list' && attrs.cluster === undefined),
    );
    try {
      const { provider } = startProvider({ endpointStartTimeoutMs: 150 });
      await expect
        .poll(() => [...provider.endpointFailures().values()].every((n) => n >= 2) && provider.endpointFailures().size === 2, POLL)
        .toBe(true);
      expect(provider.endpoints()).toEqual([]);
      expect(provider.names()).toEqual([]);
      deny = false;
      await expect.poll(() => provider.names(), POLL).toEqual([a.name, b.name].sort());
    } finally {
      kcp.server.setAuthorizer(undefined);
    }
  });

  test('stopping disengages every cluster; bad options are refused', async () => {
    const { provider, aware, stop, done } = startProvider();
    await expect.poll(() => provider.names(), POLL).toHaveLength(2);
    stop.abort();
    await done;
    expect(aware.engaged.size).toBe(0);
    expect(provider.names()).toEqual([]);
    expect(() => new ApiExportProvider({ endpointSliceName: '', exportConfig: new KubeConfig() })).toThrow(/endpointSliceName/);
    expect(() => new ApiExportProvider({ endpointSliceName: 'x', exportConfig: new KubeConfig() })).toThrow(/current context/);
    expect(new EndpointStartError('https://x', new Error('boom')).retryable).toBe(true);
  });
});
