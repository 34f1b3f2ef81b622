/**
 * GardenerProvider against envtest's fake garden (Shoots, their kubeconfig subresources issuing expiring tokens) with
 * in-memory API servers behind the shoots: which shoots are members and why not, renewal in place before a token
 * expires with nothing re-engaged, re-listed or lost, hibernation, refused kubeconfigs, a garden that fails to issue
 * one, and the seed topology following its gardener Secrets.
 */
import { controllerManagedBy, newCluster, newManager, silentLogger, type Manager } from '@multicluster-runtime/core';
import { kubeconfigOf } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { startGardenServer, type GardenServer } from '@multicluster-runtime/envtest/gardener';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { GardenerProvider, type GardenerProviderOptions } from './index.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(name: string): Promise<ApiServer> {
  // Without the bootstrap objects: the controller reconciles ConfigMaps in every namespace and the cases count them.
  const s = await startApiServer({ name, bootstrapPolicy: false });
  cleanups.push(() => s.close());
  return s;
}

async function garden(): Promise<GardenServer> {
  const g = await startGardenServer({ name: 'garden', minExpirationSeconds: 1 });
  cleanups.push(() => g.close());
  return g;
}

/** A manager over `host` with a GardenerProvider; started. */
function start(
  host: ApiServer,
  options: GardenerProviderOptions = {},
  setup?: (mgr: Manager) => void,
): { mgr: Manager; provider: GardenerProvider } {
  const provider = new GardenerProvider({ retry: { initialMs: 50, maxMs: 400 }, probeTimeoutMs: 3_000, ...options });
  const mgr = newManager(kubeconfigOf(host), provider, { logger: silentLogger });
  setup?.(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  return { mgr, provider };
}

const engaged = (mgr: Manager, name: string) =>
  mgr.getCluster(name).then(
    (c) => c,
    () => undefined,
  );

/** An admin client of one server, not through any provider. */
function admin(s: ApiServer) {
  const c = newCluster(kubeconfigOf(s), { name: `admin-${s.name}` });
  cleanups.push(() => c.close());
  return c.apiReader;
}

describe('GardenerProvider (garden topology)', () => {
  test('reconciled, awake shoots are members named namespace/shoot; the others say why not', async () => {
    const g = await garden();
    const [a, b] = await Promise.all([server('shoot-a'), server('shoot-b')]);
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    await g.fixtures.createShoot('dev', 'fresh', { server: b, lastOperation: { type: 'Create', state: 'Processing' } });
    await g.fixtures.createShoot('dev', 'sleepy', { server: b, hibernated: true });
    await g.fixtures.createShoot('ops', 'beta', { server: b });
    const { mgr, provider } = start(g, { expirationSeconds: 600 });
    await expect.poll(() => provider.names()).toEqual(['garden-dev/alpha', 'garden-ops/beta']);
    const alpha = await mgr.getCluster('garden-dev/alpha');
    expect(alpha.config.getCurrentCluster()?.server).toBe(a.url);
    await alpha.client.create({ ...configMaps, metadata: { namespace: 'default', name: 'through-alpha' } });
    expect((await admin(a).get(configMaps, { namespace: 'default', name: 'through-alpha' })).metadata.name).toBe('through-alpha');
    expect(provider.status('garden-dev/fresh')).toMatchObject({
      state: 'notReady',
      reason: 'the shoot is being created (last operation Create Processing)',
    });
    expect(provider.status('garden-dev/sleepy')).toMatchObject({ state: 'notReady', reason: 'the shoot is hibernated' });

    await g.fixtures.setLastOperation('dev', 'fresh', { type: 'Create', state: 'Succeeded' });
    await expect.poll(() => provider.names()).toContain('garden-dev/fresh');
  });

  test('many shoots asking for kubeconfigs at once, then stopping, print no warning (fail-on-warning setup)', async () => {
    const g = await garden();
    const a = await server('shoot-a');
    const names = Array.from({ length: 15 }, (_, i) => `s${i}`);
    for (const name of names) await g.fixtures.createShoot('dev', name, { server: a });
    g.faults.setLatency(300); // requests overlap, and some are still in flight at the stop
    const { provider } = start(g, { expirationSeconds: 600 });
    await expect.poll(() => g.kubeconfigsIssued(), { timeout: 15_000 }).toBeGreaterThan(0);
    g.faults.setLatency(0);
    await expect.poll(() => provider.names().length, { timeout: 15_000 }).toBe(names.length);
  });

  test('only the configured project namespace is watched; the viewer subresource is asked when configured', async () => {
    const g = await garden();
    const a = await server('shoot-a');
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    await g.fixtures.createShoot('ops', 'beta', { server: a });
    const before = g.kubeconfigsIssued();
    const { provider } = start(g, { namespace: 'garden-ops', access: 'viewer', expirationSeconds: 600 });
    await expect.poll(() => provider.names()).toEqual(['garden-ops/beta']);
    expect(g.kubeconfigsIssued() - before).toBe(1);
    expect(provider.status('garden-dev/alpha')).toBeUndefined();
  });

  test("with a namespace, a project member's RBAC is enough: shoots are listed and watched in that namespace only", async () => {
    const g = await garden();
    const a = await server('shoot-a');
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    await g.fixtures.createShoot('ops', 'beta', { server: a });
    // Like a Role in garden-dev: read shoots and ask for their admin kubeconfigs there, nothing else anywhere.
    g.addToken('dev-robot', { username: 'system:serviceaccount:garden-dev:robot' });
    const refused: string[] = [];
    g.setAuthorizer((attrs) => {
      if (attrs.user.name !== 'system:serviceaccount:garden-dev:robot') return true;
      const allowed =
        attrs.namespace === 'garden-dev' &&
        attrs.group === 'core.gardener.cloud' &&
        attrs.resource === 'shoots' &&
        (attrs.subresource === undefined
          ? ['get', 'list', 'watch'].includes(attrs.verb)
          : attrs.subresource === 'adminkubeconfig' && attrs.verb === 'create');
      if (!allowed && attrs.group === 'core.gardener.cloud')
        refused.push(`${attrs.verb} ${attrs.resource} in ${attrs.namespace ?? '(all)'}`);
      return allowed || (attrs.group !== 'core.gardener.cloud' && attrs.verb === 'get'); // discovery-ish reads
    });
    const provider = new GardenerProvider({ namespace: 'garden-dev', expirationSeconds: 600, retry: { initialMs: 50, maxMs: 400 } });
    const mgr = newManager(kubeconfigOf(g.kubeconfig({ user: { token: 'dev-robot' } })), provider, { logger: silentLogger });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    await expect.poll(() => provider.names()).toEqual(['garden-dev/alpha']);
    expect(refused).toEqual([]);
  });

  test("a garden given as a kubeconfig (config) is connected by the provider; the manager's own cluster is another", async () => {
    const g = await garden();
    const [a, runtime] = await Promise.all([server('shoot-a'), server('runtime')]);
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    await g.fixtures.createShoot('ops', 'beta', { server: a });
    const provider = new GardenerProvider({ config: kubeconfigOf(g), expirationSeconds: 600, retry: { initialMs: 50, maxMs: 400 } });
    const mgr = newManager(kubeconfigOf(runtime), provider, { logger: silentLogger });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await expect.poll(() => provider.names()).toEqual(['garden-dev/alpha', 'garden-ops/beta']);
    } finally {
      stop.abort();
      await running;
    }
    expect(() => new GardenerProvider({ config: kubeconfigOf(g), hostCluster: {} as never })).toThrow(/give one/);
  });

  test('a kubeconfig is renewed in place before it expires: same cluster, no re-list, no reconcile lost', async () => {
    const g = await garden();
    const a = await server('shoot-a');
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    const reconciled = new Set<string>();
    const { mgr, provider } = start(g, { expirationSeconds: 2 }, (m) =>
      controllerManagedBy(m)
        .named('replier')
        .for(configMaps)
        .complete(async (req) => {
          if (req.name.startsWith('reply-')) return;
          const cluster = await m.getCluster(req.clusterName);
          // A write through the member on every reconcile: it fails once the member uses an expired token.
          await cluster.client
            .create({ ...configMaps, metadata: { namespace: req.namespace, name: `reply-${req.name}` } })
            .catch((err: unknown) => {
              if ((err as { code?: number }).code !== 409) throw err;
            });
          reconciled.add(req.name);
        }),
    );
    await expect.poll(() => provider.names()).toEqual(['garden-dev/alpha']);
    const first = await mgr.getCluster('garden-dev/alpha');
    const member = admin(a);
    await member.create({ ...configMaps, metadata: { namespace: 'default', name: 'cm-0' } });
    await expect.poll(() => reconciled.has('cm-0')).toBe(true);
    const lists = a.stats().lists;
    const issued = g.kubeconfigsIssued();
    // Three renewals (every 1.6 s), so the first two tokens have expired; objects keep coming all along.
    let n = 1;
    while (g.kubeconfigsIssued() < issued + 3) {
      await member.create({ ...configMaps, metadata: { namespace: 'default', name: `cm-${n++}` } });
      await expect.poll(() => reconciled.has(`cm-${n - 1}`), { timeout: 10_000 }).toBe(true);
    }
    await member.create({ ...configMaps, metadata: { namespace: 'default', name: `cm-${n++}` } });
    await expect.poll(() => reconciled.size, { timeout: 10_000 }).toBe(n);
    expect(await mgr.getCluster('garden-dev/alpha')).toBe(first);
    expect(a.stats().lists).toBe(lists);
    expect(provider.status('garden-dev/alpha')).toMatchObject({ state: 'engaged', failures: 0 });
  });

  test('a shoot that hibernates is disengaged and engaged again when it wakes; a deleted one is forgotten', async () => {
    const g = await garden();
    const a = await server('shoot-a');
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    const { mgr, provider } = start(g, { expirationSeconds: 600 });
    await expect.poll(() => engaged(mgr, 'garden-dev/alpha')).toBeDefined();
    await g.fixtures.hibernate('dev', 'alpha', true);
    await expect.poll(() => engaged(mgr, 'garden-dev/alpha')).toBeUndefined();
    expect(provider.status('garden-dev/alpha')).toMatchObject({ state: 'notReady', reason: 'the shoot is hibernated' });
    await g.fixtures.hibernate('dev', 'alpha', false);
    await expect.poll(() => engaged(mgr, 'garden-dev/alpha')).toBeDefined();
    await g.fixtures.deleteShoot('dev', 'alpha');
    await expect.poll(() => provider.status('garden-dev/alpha')).toBeUndefined();
    expect(provider.names()).toEqual([]);
  });

  test('a shoot moved to another API server is re-engaged there', async () => {
    const g = await garden();
    const [a, b] = await Promise.all([server('shoot-a'), server('shoot-b')]);
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    const { mgr } = start(g, { expirationSeconds: 600 });
    await expect.poll(async () => (await engaged(mgr, 'garden-dev/alpha'))?.config.getCurrentCluster()?.server).toBe(a.url);
    await g.fixtures.moveShoot('dev', 'alpha', b);
    await expect.poll(async () => (await engaged(mgr, 'garden-dev/alpha'))?.config.getCurrentCluster()?.server).toBe(b.url);
  });

  test('kubeconfigs from the garden are untrusted: exec is refused and never run, garbage is invalid, healthy shoots stay', async () => {
    const g = await garden();
    const [a, b] = await Promise.all([server('shoot-a'), server('shoot-b')]);
    const pwned = join(tmpdir(), `mcr-gardener-pwned-${process.pid}`);
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    g.tamperKubeconfigs((text, shoot) => {
      if (shoot.name !== 'evil') return text;
      const doc = parse(text) as { users: { user: Record<string, unknown> }[] };
      doc.users[0]!.user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: ['-c', `touch ${pwned}`] } };
      return stringify(doc);
    });
    await g.fixtures.createShoot('dev', 'evil', { server: a });
    await g.fixtures.createShoot('dev', 'garbage', { server: a });
    const { provider } = start(g, { expirationSeconds: 600 });
    await expect.poll(() => provider.status('garden-dev/evil')?.state).toBe('rejected');
    expect(provider.status('garden-dev/evil')?.reason).toMatch(/exec/);
    await expect.poll(() => provider.names()).toEqual(['garden-dev/alpha', 'garden-dev/garbage']);
    expect(existsSync(pwned)).toBe(false);
    g.tamperKubeconfigs(() => 'not: [a kubeconfig');
    await g.fixtures.moveShoot('dev', 'garbage', b); // asks for a new kubeconfig, which is now garbage
    await expect.poll(() => provider.status('garden-dev/garbage')?.state).toBe('invalid');
    expect(provider.names()).toEqual(['garden-dev/alpha']);
  });

  test('a garden that will not issue a kubeconfig is retried with backoff; the shoot says why it waits', async () => {
    const g = await garden();
    const a = await server('shoot-a');
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    g.failKubeconfigRequests({ code: 503, reason: 'ServiceUnavailable', message: 'the garden is busy' });
    const { provider } = start(g, { expirationSeconds: 600 });
    await expect.poll(() => provider.status('garden-dev/alpha')?.reason).toMatch(/the garden issued no kubeconfig: .*busy/);
    expect(provider.status('garden-dev/alpha')?.state).toBe('notReady');
    g.failKubeconfigRequests(undefined);
    await expect.poll(() => provider.names(), { timeout: 10_000 }).toEqual(['garden-dev/alpha']);
  });

  test('a renewal that fails keeps the member engaged on its credential and succeeds on retry', async () => {
    const g = await garden();
    const a = await server('shoot-a');
    await g.fixtures.createShoot('dev', 'alpha', { server: a });
    const { mgr, provider } = start(g, { expirationSeconds: 4 });
    await expect.poll(() => provider.names()).toEqual(['garden-dev/alpha']);
    const first = await mgr.getCluster('garden-dev/alpha');
    const issued = g.kubeconfigsIssued();
    g.failKubeconfigRequests({ code: 500, reason: 'InternalError', message: 'flaky' });
    // The renewal at 3.2 s fails and is retried with backoff; the member stays engaged on its current token.
    await expect.poll(() => g.kubeconfigRequestsFailed(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(await mgr.getCluster('garden-dev/alpha')).toBe(first);
    expect(provider.status('garden-dev/alpha')?.state).toBe('engaged');
    g.failKubeconfigRequests(undefined);
    await expect.poll(() => g.kubeconfigsIssued(), { timeout: 10_000 }).toBe(issued + 1);
    await first.client.create({ ...configMaps, metadata: { namespace: 'default', name: 'after-retry' } });
    expect(await mgr.getCluster('garden-dev/alpha')).toBe(first);
  });

  test('bad options are refused with a clear error', () => {
    expect(() => new GardenerProvider({ topology: 'shoot' as never })).toThrow(/topology/);
    expect(() => new GardenerProvider({ access: 'root' as never })).toThrow(/access/);
    expect(() => new GardenerProvider({ expirationSeconds: 0 })).toThrow(/expirationSeconds/);
    expect(() => new GardenerProvider({ topology: 'seed', expirationSeconds: 600 })).toThrow(/garden topology only/);
    expect(() => new GardenerProvider({ nmespace: 'x' } as never)).toThrow(/nmespace/);
  });
});

describe('GardenerProvider (seed topology)', () => {
  test("each extensions Cluster is a member through its gardener Secret; Gardener's token renewal swaps in place", async () => {
    const seed = await garden();
    const a = await server('control-plane-a');
    const minted = Date.now();
    const id = await seed.fixtures.createSeedCluster('dev', 'alpha', a, { expirationSeconds: 2 });
    const { mgr, provider } = start(seed, { topology: 'seed' });
    await expect.poll(() => provider.names()).toEqual([id]);
    const first = await mgr.getCluster(id);
    await first.client.create({ ...configMaps, metadata: { namespace: 'default', name: 'before' } });
    const lists = a.stats().lists;
    await seed.fixtures.renewSeedToken(id, a, { expirationSeconds: 600 });
    // Once the first token has expired, a write through the member works only with the renewed one.
    await expect.poll(() => Date.now() > minted + 2_000, { timeout: 5_000 }).toBe(true);
    const write = () => first.client.create({ ...configMaps, metadata: { namespace: 'default', name: 'after' } });
    await expect
      .poll(() =>
        write().then(
          () => 'written',
          (err: unknown) => ((err as { code?: number }).code === 409 ? 'written' : 'failed'),
        ),
      )
      .toBe('written');
    expect(await mgr.getCluster(id)).toBe(first);
    expect(a.stats().lists).toBe(lists);

    await seed.fixtures.request('DELETE', `/api/v1/namespaces/${id}/secrets/gardener`);
    await expect.poll(() => provider.status(id)?.state).toBe('notReady');
    expect(provider.names()).toEqual([]);
    await seed.fixtures.deleteSeedCluster(id);
    await expect.poll(() => provider.status(id)).toBeUndefined();
  });
});
