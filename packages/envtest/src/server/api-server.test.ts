import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import { startFleet } from '../fleet.js';
import { InvalidOptionsError, ServerStateError } from '../errors.js';
import { BOOTSTRAP_OBJECTS, BOOTSTRAP_RESOURCES } from './bootstrap-objects.js';
import { normalized } from './bootstrap-objects.test-util.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function start(opts: Parameters<typeof startApiServer>[0] = {}): Promise<{ server: ApiServer; client: KubeHttpClient }> {
  const server = await startApiServer(opts);
  const client = new KubeHttpClient(server.kubeconfig());
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client };
}

const cm = (name: string) => ({ metadata: { name }, data: { a: 'b' } });

describe('ApiServer lifecycle', () => {
  test('stop() refuses connections; restart() serves the same state on the same port', async () => {
    const { server, client } = await start();
    const port = server.port;
    expect((await client.post('/api/v1/namespaces/default/configmaps', cm('kept'))).status).toBe(201);
    await server.stop();
    await expect(client.get('/api/v1/namespaces/default/configmaps/kept')).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/);
    await server.restart();
    expect(server.port).toBe(port);
    const got = await client.get('/api/v1/namespaces/default/configmaps/kept');
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ a: 'b' });
  });

  test('stop() ends open watches cleanly instead of hanging', async () => {
    const { server, client } = await start();
    const w = await client.watch('/api/v1/namespaces/default/configmaps', { resourceVersion: '1' });
    expect(server.stats().openWatches).toBe(1);
    await server.stop();
    await w.waitForEnd(5000);
    expect(server.stats().openWatches).toBe(0);
  });

  test('stop() ends a connection still in its TLS handshake instead of waiting for the client to give up', async () => {
    const { server } = await start();
    // A client that connected but has not sent its ClientHello yet (a request racing the stop): an HTTP server's
    // closeAllConnections() does not know such a socket, and close() would wait for it as long as the client keeps it.
    const socket = connect(server.port, '127.0.0.1');
    await once(socket, 'connect');
    await vi.waitFor(() => expect(server.stats().tcpConnections).toBeGreaterThan(0));
    const closed = once(socket, 'close');
    await server.stop();
    await closed;
    await server.restart();
  }, 10_000);

  test('close() is idempotent and restart() after close() is refused', async () => {
    const { server } = await start();
    await server.close();
    await server.close();
    await expect(server.restart()).rejects.toBeInstanceOf(ServerStateError);
  });

  test('a port in use is a ServerListenError', async () => {
    const { server } = await start();
    await expect(startApiServer({ port: server.port })).rejects.toMatchObject({ name: 'ServerListenError', retryable: true });
  });

  test('an aborted signal stops start-up', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(startApiServer({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(startFleet(3, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  test('bad options are refused with InvalidOptionsError', async () => {
    await expect(startApiServer({ port: -1 })).rejects.toBeInstanceOf(InvalidOptionsError);
    await expect(startApiServer({ defaultWatchTimeoutSeconds: 0 })).rejects.toBeInstanceOf(InvalidOptionsError);
    const { server } = await start();
    expect(() => server.faults.setLatency(-5)).toThrow(InvalidOptionsError);
    expect(() => server.faults.failNextWatch(200)).toThrow(InvalidOptionsError);
    expect(() => server.kubeconfig({ user: { token: '' } })).toThrow(InvalidOptionsError);
  });
});

describe('ApiServer stats and faults', () => {
  test('stats() counts TLS connections, so connection reuse is visible', async () => {
    const { server, client } = await start();
    const before = server.stats();
    for (let i = 0; i < 5; i++) expect((await client.get('/api/v1/namespaces')).status).toBe(200);
    const after = server.stats();
    expect(after.requests - before.requests).toBe(5);
    expect(after.connections - before.connections).toBe(1);
  });

  test('stats() counts lists, but not watches or reads of one object', async () => {
    const { server, client } = await start();
    const before = server.stats().lists;
    expect((await client.get('/api/v1/namespaces')).status).toBe(200);
    expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
    const watch = await client.watch('/api/v1/namespaces', { timeoutSeconds: 1 });
    watch.close();
    expect(server.stats().lists - before).toBe(1);
  });

  test('setLatency holds many requests at once without a MaxListenersExceeded warning', async () => {
    const { server, client } = await start();
    server.faults.setLatency(100);
    try {
      const answers = await Promise.all(Array.from({ length: 30 }, () => client.get('/api/v1/namespaces')));
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    } finally {
      server.faults.setLatency(0);
    }
  });

  test('setLatency delays every request', async () => {
    const { server, client } = await start();
    server.faults.setLatency(200);
    const t0 = performance.now();
    expect((await client.get('/api/v1/namespaces')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    server.faults.setLatency(0);
  });

  test('stop() releases requests waiting on injected latency at once', async () => {
    const { server, client } = await start();
    server.faults.setLatency(60_000);
    const pending = client.get('/api/v1/namespaces').then(
      () => 'answered',
      () => 'failed',
    );
    await expect.poll(() => server.stats().requests).toBe(1);
    const t0 = performance.now();
    await server.stop();
    expect(await pending).toBe('failed');
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  test('failNextWatch with another code sends that code in the ERROR event', async () => {
    const { server, client } = await start();
    server.faults.failNextWatch(500);
    const w = await client.watch('/api/v1/namespaces');
    const events = await w.waitForEnd();
    expect(events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ code: 500, reason: 'InternalError' }) }]);
  });
});

describe('watch timing', () => {
  test('bookmarks arrive periodically and just before the server-side timeout', async () => {
    const { client } = await start({ bookmarkIntervalMs: 100 });
    const list = await client.get('/api/v1/namespaces/default/configmaps');
    const w = await client.watch('/api/v1/namespaces/default/configmaps', {
      resourceVersion: list.body.metadata.resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: 1,
    });
    const events = await w.waitForEnd(5000);
    expect(events.length).toBeGreaterThanOrEqual(3);
    for (const e of events) {
      expect(e.type).toBe('BOOKMARK');
      expect(e.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: list.body.metadata.resourceVersion } });
    }
  });

  test('without allowWatchBookmarks no BOOKMARK is sent; the default timeout ends the watch', async () => {
    const { client } = await start({ bookmarkIntervalMs: 50, defaultWatchTimeoutSeconds: 1 });
    const w = await client.watch('/api/v1/namespaces/default/configmaps', { resourceVersion: '1' });
    expect(await w.waitForEnd(5000)).toEqual([]);
    expect(w.broken).toBe(false);
  });
});

describe('namespaces', () => {
  test('PUT /finalize removing the kubernetes finalizer deletes a terminating namespace', async () => {
    const { client } = await start();
    await client.post('/api/v1/namespaces', { metadata: { name: 'fin' } });
    await client.delete('/api/v1/namespaces/fin');
    const ns = (await client.get('/api/v1/namespaces/fin')).body;
    expect(ns.status.phase).toBe('Terminating');
    const res = await client.put('/api/v1/namespaces/fin/finalize', { ...ns, spec: { finalizers: [] } });
    expect(res.status).toBe(200);
    expect((await client.get('/api/v1/namespaces/fin')).status).toBe(404);
  });

  test('with namespaceController the namespace and its contents go away', async () => {
    const { client } = await start({ namespaceController: true });
    await client.post('/api/v1/namespaces', { metadata: { name: 'gone' } });
    await client.post('/api/v1/namespaces/gone/configmaps', cm('a'));
    await client.post('/api/v1/namespaces/gone/configmaps', { metadata: { name: 'held', finalizers: ['example.com/x'] } });
    await client.delete('/api/v1/namespaces/gone');
    await expect.poll(async () => (await client.get('/api/v1/namespaces/gone/configmaps/a')).status).toBe(404);
    // The finalizer holds the namespace until someone removes it.
    expect((await client.get('/api/v1/namespaces/gone')).status).toBe(200);
    await client.patch('/api/v1/namespaces/gone/configmaps/held', 'application/merge-patch+json', { metadata: { finalizers: null } });
    await expect.poll(async () => (await client.get('/api/v1/namespaces/gone')).status).toBe(404);
  });
});

describe('fleet', () => {
  test('a fleet of 100 servers starts, serves and closes', async () => {
    const t0 = performance.now();
    const fleet = await startFleet(100);
    cleanups.push(() => fleet.close());
    expect(fleet.servers).toHaveLength(100);
    expect(new Set(fleet.servers.map((s) => s.port)).size).toBe(100);
    expect(fleet.servers[7]!.name).toBe('cluster-7');
    const client = new KubeHttpClient(fleet.servers[99]!.kubeconfig());
    cleanups.push(() => client.close());
    expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
    // Generous bound: the point is that certificates are shared, not generated 100 times.
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  test('a bad size is refused', async () => {
    await expect(startFleet(-1)).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

describe('kubeconfig', () => {
  test('token user kubeconfig authenticates as that user once the token is registered', async () => {
    const { server } = await start({ tokens: { 'seed-token': 'bob' } });
    const seeded = new KubeHttpClient(server.kubeconfig({ user: { token: 'seed-token' } }));
    cleanups.push(() => seeded.close());
    expect((await seeded.get('/api/v1/namespaces')).status).toBe(200);
    const yaml = server.kubeconfig({ contextName: 'ctx', namespace: 'team' });
    expect(yaml).toContain('current-context: ctx');
    expect(yaml).toContain('namespace: team');
    expect(yaml).toContain('client-certificate-data:');
    expect(yaml).not.toContain('seed-token');
  });
});

describe('bootstrap policy', () => {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';

  test('a new server holds the RBAC bootstrap policy a real server writes under RBAC authorization', async () => {
    const { client } = await start();
    const names = async (path: string) =>
      ((await client.get(path)).body.items as { metadata: { name: string } }[]).map((o) => o.metadata.name);
    // The same sets bootstrap-objects.real.test.ts reads from the real server (73 ClusterRoles, 54 bindings in v1.37).
    expect(await names(`${rbac}/clusterroles`)).toEqual(
      expect.arrayContaining(['admin', 'cluster-admin', 'edit', 'view', 'system:auth-delegator']),
    );
    expect(await names(`${rbac}/clusterroles`)).toHaveLength(73);
    expect(await names(`${rbac}/clusterrolebindings`)).toHaveLength(54);
    expect(await names(`${rbac}/namespaces/kube-system/rolebindings`)).toContain('system::extension-apiserver-authentication-reader');
    const view = (await client.get(`${rbac}/clusterroles/view`)).body;
    expect(view.aggregationRule).toEqual({
      clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }],
    });
    expect(view.metadata).toMatchObject({
      uid: expect.any(String),
      resourceVersion: expect.any(String),
      creationTimestamp: expect.any(String),
    });
  });

  test("every server holds bootstrap-objects.ts under its own identity, and one server's changes to it stay its own", async () => {
    const startedAfter = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const servers = [await start(), await start()];
    type Item = Record<string, unknown> & { metadata: Record<string, string> };
    const policyOf = async (client: KubeHttpClient): Promise<Item[]> => {
      const items: Item[] = [];
      for (const { groupVersion, resource, kind } of BOOTSTRAP_RESOURCES) {
        const list = (await client.get(`/apis/${groupVersion}/${resource}`)).body.items as Item[];
        items.push(...list.map((o) => ({ ...o, apiVersion: groupVersion, kind })));
      }
      return items;
    };
    const policies = await Promise.all(servers.map(({ client }) => policyOf(client)));
    for (const policy of policies) {
      expect(policy.map((o) => normalized(o))).toEqual(BOOTSTRAP_OBJECTS);
      for (const { metadata } of policy) expect(metadata['creationTimestamp']! >= startedAfter).toBe(true);
    }
    const uids = policies.flatMap((policy) => policy.map((o) => o.metadata['uid']));
    expect(new Set(uids).size).toBe(uids.length);
    const cidr = policies[1]!.find((o) => o.kind === 'ServiceCIDR')!;
    expect(cidr['status']).toMatchObject({ conditions: [{ type: 'Ready', status: 'True' }] });

    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const view = (await b.client.get(`${rbac}/clusterroles/view`)).body;
    view.metadata.labels = { ...view.metadata.labels, changed: 'here' };
    view.aggregationRule.clusterRoleSelectors[0].matchLabels['changed'] = 'here';
    expect((await b.client.put(`${rbac}/clusterroles/view`, view)).status).toBe(200);
    expect((await b.client.delete(`${rbac}/clusterroles/edit`)).status).toBe(200);
    const c = await start();
    for (const { client } of [a, c]) {
      const unchanged = (await client.get(`${rbac}/clusterroles/view`)).body;
      expect(normalized(unchanged)).toEqual(BOOTSTRAP_OBJECTS.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'view'));
      expect((await client.get(`${rbac}/clusterroles/edit`)).status).toBe(200);
    }
    const changed = (await b.client.get(`${rbac}/clusterroles/view`)).body;
    expect(changed.metadata.labels['changed']).toBe('here');
    expect(changed.aggregationRule.clusterRoleSelectors[0].matchLabels['changed']).toBe('here');
    expect((await b.client.get(`${rbac}/clusterroles/edit`)).status).toBe(404);
  });

  test('bootstrapPolicy: false leaves the RBAC, APF and ServiceCIDR objects out, and logical clusters never have them', async () => {
    const { client } = await start({ bootstrapPolicy: false });
    for (const path of [
      `${rbac}/clusterroles`,
      '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
      '/apis/networking.k8s.io/v1/servicecidrs',
    ]) {
      expect((await client.get(path)).body.items, path).toEqual([]);
    }
    expect((await client.get('/api/v1/namespaces/default/services/kubernetes')).status).toBe(200);
    const kcp = await start({ logicalClusters: true });
    expect((await kcp.client.get(`/clusters/root${rbac}/clusterroles`)).body.items).toEqual([]);
  });
});
