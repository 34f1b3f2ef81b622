/**
 * Fidelity: upstream's kubeconfig Secret and file providers (sigs.k8s.io/multicluster-runtime, run by
 * tools/go-upstream-providers) and this package's providers watch one fleet side by side, each with the same
 * ConfigMap controller, through the same steps (tools/test-setup/src/cross-check). Both must engage the same members
 * under the same names, reconcile the same objects at the same state, and engage a member anew when its kubeconfig
 * rotates. Where this package departs from upstream on purpose (README, "Differences from upstream Go"), the step
 * says what each side must show, so the difference stays proven rather than claimed.
 *
 * The scenarios run on any API server tier: `cross-check.test.ts` on in-memory servers, `cross-check.real.test.ts`
 * on real kube-apiservers. Three servers make the fleet; the host (where the Secrets live) is also a member.
 */
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '@multicluster-runtime/core';
import type { KubeconfigOptions, TokenUser } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Member } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { adminClient, crossCheckSides } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { startTsSide } from '../../../../tools/test-setup/src/cross-check/ts-side.test-util.js';
import {
  UpstreamProviders,
  buildUpstreamProviders,
  goMissing,
} from '../../../../tools/test-setup/src/cross-check/upstream-providers.test-util.js';
import { KubeconfigFileProvider } from '../file-provider.js';
import { kubeconfigDoc, markerPlugin } from '../fleet.test-util.js';
import { DEFAULT_KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider } from '../secret-provider.js';

/** An API server of either tier, as the scenarios use it. */
export interface FleetServer {
  readonly name: string;
  kubeconfig(options?: KubeconfigOptions): string;
  addToken(token: string, user: TokenUser): void;
  /** Stops listening and listens again on the same port with the same state (the in-memory tier); steps that need it skip without. */
  stop?(): Promise<void>;
  restart?(): Promise<void>;
}

/** Starts the three servers of the fleet (the first is the host); `stop` stops them all. */
export type StartServers = () => Promise<{ servers: [FleetServer, FleetServer, FleetServer]; stop: () => Promise<void> }>;

const NS = 'fleet';
/** How long a step may take to settle; a step's test gets twice that (it may wait twice). */
const SETTLE_MS = 60_000;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const ROTATED_TOKEN = 'rotated-admin-token-7d2e';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

const configMap = (name: string, data: Record<string, string>): KubeObject => ({
  ...CONFIGMAP,
  metadata: { name, namespace: 'default' },
  data,
});

const missing = await goMissing();

/**
 * Everything a scenario shares: the servers, a client per server, the Go program and the two observations, and the
 * step runner. Steps build on each other: after a failed one the rest are skipped.
 */
function crossCheckFixture(startServers: StartServers) {
  const f = {
    servers: [] as unknown as [FleetServer, FleetServer, FleetServer],
    clients: [] as ReturnType<typeof adminClient>[],
    bin: '',
    sides: crossCheckSides(SETTLE_MS),
    host: new KubeConfig(),
    secretProvider: undefined as KubeconfigSecretProvider | undefined,
    stopServers: async () => {},
  };

  beforeAll(async () => {
    // A cold Go build cache compiles client-go and controller-runtime: minutes. .ci/run builds first.
    const [bin, started] = await Promise.all([buildUpstreamProviders(25 * 60_000), startServers()]);
    f.bin = bin;
    f.servers = started.servers;
    f.stopServers = started.stop;
    for (const s of f.servers) s.addToken(ROTATED_TOKEN, { username: 'rotated-admin', groups: ['system:masters'] });
    f.clients = f.servers.map((s) => adminClient(s.kubeconfig()));
    f.host.loadFromString(f.servers[0].kubeconfig());
    await Promise.all(f.clients.map((c, i) => c.client.create(configMap('settings', { server: String(i) }))));
  }, 30 * 60_000);

  afterAll(async () => {
    await f.sides.stop();
    for (const c of f.clients) await c.close();
    await f.stopServers();
  }, 60_000);

  return f;
}

/** The kubeconfig Secret provider's scenario. */
export function secretProviderCrossCheck(tier: string, startServers: StartServers): void {
  describe.skipIf(missing !== undefined)(
    missing
      ? `upstream Go kubeconfig Secret provider cross-check (${tier}) skipped: ${missing}`
      : `upstream's kubeconfig Secret provider and KubeconfigSecretProvider see the same fleet (${tier})`,
    { timeout: 2 * SETTLE_MS + 30_000 },
    () => {
      const f = crossCheckFixture(startServers);
      /** Secret name → index of the server its kubeconfig reaches. */
      const target = { alpha: 1, beta: 2, gamma: 0 } as const;
      type Name = keyof typeof target;
      const member = (name: Name): Member => ({ name, client: f.clients[target[name]]!.client });
      const hostClient = () => f.clients[0]!.client;

      const secret = (name: Name, data: Record<string, string>, labelled = true): KubeObject => ({
        ...SECRET,
        metadata: { name, namespace: NS, labels: labelled ? { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' } : {} },
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
      });
      const replaceSecret = async (name: Name, data: Record<string, string>, labelled = true) => {
        const current = await hostClient().get(SECRET, { namespace: NS, name });
        const next = secret(name, data, labelled);
        await hostClient().update({ ...next, metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion } });
      };
      const kubeconfigOf = (name: Name, options?: KubeconfigOptions) => f.servers[target[name]].kubeconfig(options);

      test('both engage the members of the labelled Secrets present at start', async () => {
        await f.sides.check.step(
          async () => {
            await hostClient().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
            await hostClient().create(secret('alpha', { kubeconfig: kubeconfigOf('alpha') }));
            await hostClient().create(secret('beta', { kubeconfig: kubeconfigOf('beta') }));
            // Not a member: no label.
            await hostClient().create(secret('gamma', { kubeconfig: kubeconfigOf('gamma') }, false));
            const hostFile = join(await tmpRoot(), 'host.kubeconfig');
            await writeFile(hostFile, f.servers[0].kubeconfig(), { mode: 0o600 });
            f.sides.go = UpstreamProviders.start(
              f.bin,
              ['--kubeconfig', hostFile, '--provider', 'kubeconfig', '--namespace', NS],
              f.sides.goObs,
            );
            f.sides.ts = await startTsSide(
              f.host,
              (logger) => (f.secretProvider = new KubeconfigSecretProvider({ namespace: NS, logger })),
              f.sides.tsObs,
            );
          },
          { engaged: [member('alpha'), member('beta')] },
        );
      });

      test('a Secret that gets the label engages its member', async () => {
        await f.sides.check.step(() => replaceSecret('gamma', { kubeconfig: kubeconfigOf('gamma') }), {
          engaged: [member('alpha'), member('beta'), member('gamma')],
        });
      });

      test('objects that change are reconciled at their new state by both', async () => {
        await f.sides.check.step(
          async () => {
            await member('alpha').client.patch(
              CONFIGMAP,
              { namespace: 'default', name: 'settings' },
              { type: 'merge', body: { data: { owner: 'A' } } },
            );
            await member('beta').client.create(configMap('extra', { more: 'yes' }));
            await member('gamma').client.delete(CONFIGMAP, { namespace: 'default', name: 'settings' });
          },
          { engaged: [member('alpha'), member('beta'), member('gamma')] },
        );
      });

      test('a rotated kubeconfig (a token instead of the certificate) engages its member anew', async () => {
        await f.sides.check.step(() => replaceSecret('beta', { kubeconfig: kubeconfigOf('beta', { user: { token: ROTATED_TOKEN } }) }), {
          engaged: [member('alpha'), member('beta'), member('gamma')],
          reengaged: ['beta'],
        });
      });

      test('a member whose API server restarts stays engaged with both, and a change right after is reconciled by both', async (t) => {
        const server = f.servers[target.alpha];
        if (!server.stop || !server.restart) return t.skip('this tier cannot restart a server in place');
        await f.sides.check.step(
          async () => {
            await server.stop!();
            await server.restart!();
            await member('alpha').client.patch(
              CONFIGMAP,
              { namespace: 'default', name: 'settings' },
              { type: 'merge', body: { data: { owner: 'after restart' } } },
            );
          },
          { engaged: [member('alpha'), member('beta'), member('gamma')] },
        );
      });

      test('on purpose: a kubeconfig that changes but not the connection (a renamed context) is kept here; upstream engages anew', async () => {
        await f.sides.check.step(() => replaceSecret('alpha', { kubeconfig: kubeconfigOf('alpha', { contextName: 'renamed' }) }), {
          engaged: [member('alpha'), member('beta'), member('gamma')],
          reengaged: [],
          goReengaged: ['alpha'],
        });
      });

      test('a deleted Secret disengages its member', async () => {
        await f.sides.check.step(
          () =>
            hostClient()
              .delete(SECRET, { namespace: NS, name: 'alpha' })
              .then(() => {}),
          {
            engaged: [member('beta'), member('gamma')],
          },
        );
      });

      test('on purpose: a Secret that loses its kubeconfig key disengages here; upstream keeps the old connection', async () => {
        await f.sides.check.step(() => replaceSecret('gamma', { other: 'no kubeconfig here' }), {
          engaged: [member('beta')],
          goEngaged: [member('beta'), member('gamma')],
        });
      });

      test('the key comes back: engaged here again; upstream never let go', async () => {
        await f.sides.check.step(() => replaceSecret('gamma', { kubeconfig: kubeconfigOf('gamma') }), {
          engaged: [member('beta'), member('gamma')],
        });
      });

      test('on purpose: a Secret that loses its label disengages here; upstream keeps it (its predicate drops the update)', async () => {
        await f.sides.check.step(
          () => replaceSecret('beta', { kubeconfig: kubeconfigOf('beta', { user: { token: ROTATED_TOKEN } }) }, false),
          {
            engaged: [member('gamma')],
            goEngaged: [member('beta'), member('gamma')],
          },
        );
      });

      test('on purpose: a kubeconfig with an exec credential plugin is refused here; upstream runs the plugin and engages', async () => {
        const plugin = markerPlugin(await tmpRoot(), 'hostile');
        const doc = kubeconfigDoc(f.servers[target.alpha]);
        doc['users'][0]['user'] = {
          exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin.command, interactiveMode: 'Never' },
        };
        // The plugin answers with this token, which the server accepts: upstream gets a working cluster out of it.
        for (const server of f.servers) server.addToken('from-exec', { username: 'exec-user', groups: ['system:masters'] });
        const hostile: Member = { name: 'hostile', client: f.clients[target.alpha]!.client };
        await f.sides.check.step(
          async () => {
            await hostClient().create({
              ...SECRET,
              metadata: { name: 'hostile', namespace: NS, labels: { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' } },
              data: { kubeconfig: b64(JSON.stringify(doc)) },
            });
          },
          { engaged: [member('gamma')], goEngaged: [member('beta'), member('gamma'), hostile] },
        );
        // Only upstream can have run it: this package's provider refused the kubeconfig before connecting.
        expect(plugin.ran()).toBe(true);
        expect(f.secretProvider?.status('hostile')).toMatchObject({ state: 'rejected' });
      });
    },
  );
}

/** The kubeconfig file provider's scenario. */
export function fileProviderCrossCheck(tier: string, startServers: StartServers): void {
  describe.skipIf(missing !== undefined)(
    missing
      ? `upstream Go kubeconfig file provider cross-check (${tier}) skipped: ${missing}`
      : `upstream's file provider and KubeconfigFileProvider see the same fleet (${tier})`,
    { timeout: 2 * SETTLE_MS + 30_000 },
    () => {
      const f = crossCheckFixture(startServers);
      let dir = '';
      let staging = '';
      beforeAll(async () => {
        [dir, staging] = await Promise.all([tmpRoot(), tmpRoot()]);
      });

      /** A context of a file: its name and the index of the server it reaches. */
      type Context = readonly [name: string, server: number, options?: KubeconfigOptions];
      const member = (file: string, context: string, server: number): Member => ({
        name: `${join(dir, file)}+${context}`,
        client: f.clients[server]!.client,
      });
      /** A kubeconfig with these contexts, each reaching its server with its options. */
      const kubeconfigFile = (contexts: readonly Context[]): string => {
        const docs = contexts.map(([name, server, options]) => kubeconfigDoc(f.servers[server]!, { ...options, contextName: name }));
        const merged = {
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': contexts[0]![0],
          clusters: [] as unknown[],
          users: [] as unknown[],
          contexts: [] as unknown[],
        };
        for (const d of docs) {
          merged.clusters.push(...d['clusters']!);
          merged.users.push(...d['users']!);
          merged.contexts.push(...d['contexts']!);
        }
        return JSON.stringify(merged);
      };
      /**
       * Writes a file whole: written outside the watched folder (same filesystem) and renamed into it, so neither side
       * reads it half-written and the folder sees one event.
       */
      const put = async (file: string, text: string) => {
        const tmp = join(staging, file);
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, join(dir, file));
      };
      const a1 = () => member('a.kubeconfig', 'one', 1);
      const b2 = () => member('b.kubeconfig', 'two', 2);
      const b0 = () => member('b.kubeconfig', 'three', 0);
      const c1 = () => member('c.kubeconfig', 'four', 1);

      test('both engage every context of the files present at start', async () => {
        await f.sides.check.step(
          async () => {
            await put('a.kubeconfig', kubeconfigFile([['one', 1]]));
            await put(
              'b.kubeconfig',
              kubeconfigFile([
                ['two', 2],
                ['three', 0],
              ]),
            );
            const hostFile = join(await tmpRoot(), 'host.kubeconfig');
            await writeFile(hostFile, f.servers[0].kubeconfig(), { mode: 0o600 });
            f.sides.go = UpstreamProviders.start(f.bin, ['--kubeconfig', hostFile, '--provider', 'file', '--dirs', dir], f.sides.goObs);
            f.sides.ts = await startTsSide(f.host, (logger) => new KubeconfigFileProvider({ paths: [dir], logger }), f.sides.tsObs);
          },
          { engaged: [a1(), b2(), b0()] },
        );
      });

      test('a new file engages its contexts', async () => {
        await f.sides.check.step(() => put('c.kubeconfig', kubeconfigFile([['four', 1]])), { engaged: [a1(), b2(), b0(), c1()] });
      });

      test('objects that change are reconciled at their new state by both', async () => {
        await f.sides.check.step(
          async () => {
            await f.clients[1]!.client.patch(
              CONFIGMAP,
              { namespace: 'default', name: 'settings' },
              { type: 'merge', body: { data: { owner: 'one' } } },
            );
            await f.clients[2]!.client.create(configMap('extra', { more: 'yes' }));
            await f.clients[0]!.client.delete(CONFIGMAP, { namespace: 'default', name: 'settings' });
          },
          { engaged: [a1(), b2(), b0(), c1()] },
        );
      });

      // Upstream's pkg/clusters starts each cluster in a goroutine that, when the cluster stops, removes the cluster
      // *by name*: replacing a cluster stops the old one, whose goroutine then removes the replacement. So a rotated
      // kubeconfig file leaves its member disengaged until the next change in the folder re-adds it.
      test('on purpose: a rotated kubeconfig engages its context anew here; upstream loses the member', async () => {
        await f.sides.check.step(() => put('a.kubeconfig', kubeconfigFile([['one', 1, { user: { token: ROTATED_TOKEN } }]])), {
          engaged: [a1(), b2(), b0(), c1()],
          reengaged: [a1().name],
          goEngaged: [b2(), b0(), c1()],
          goReengaged: [],
          goLost: [a1().name],
        });
      });

      test("a context removed from its file disengages; the file's other context stays (upstream re-adds the lost member)", async () => {
        await f.sides.check.step(() => put('b.kubeconfig', kubeconfigFile([['two', 2]])), { engaged: [a1(), b2(), c1()] });
      });

      test('a deleted file disengages its contexts', async () => {
        await f.sides.check.step(() => unlink(join(dir, 'c.kubeconfig')), { engaged: [a1(), b2()] });
      });

      test('on purpose: a file that cannot be read keeps its members engaged here; upstream drops them', async () => {
        await f.sides.check.step(() => put('b.kubeconfig', 'clusters: [this is not a kubeconfig'), {
          engaged: [a1(), b2()],
          goEngaged: [a1()],
        });
      });

      test('the file is whole again: upstream engages anew; here nothing had changed', async () => {
        await f.sides.check.step(() => put('b.kubeconfig', kubeconfigFile([['two', 2]])), { engaged: [a1(), b2()] });
      });

      test('on purpose: a file whose kubeconfig has an exec credential plugin is refused here; upstream runs the plugin', async () => {
        const plugin = markerPlugin(await tmpRoot(), 'hostile-file');
        const doc = kubeconfigDoc(f.servers[1], { contextName: 'five' });
        doc['users'][0]['user'] = {
          exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin.command, interactiveMode: 'Never' },
        };
        for (const server of f.servers) server.addToken('from-exec', { username: 'exec-user', groups: ['system:masters'] });
        await f.sides.check.step(() => put('h.kubeconfig', JSON.stringify(doc)), {
          engaged: [a1(), b2()],
          goEngaged: [a1(), b2(), member('h.kubeconfig', 'five', 1)],
        });
        expect(plugin.ran()).toBe(true);
      });
    },
  );
}

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function tmpRoot(): Promise<string> {
  const r = await mkdtemp(join(tmpdir(), 'kubeconfig-cross-check-'));
  roots.push(r);
  return r;
}
