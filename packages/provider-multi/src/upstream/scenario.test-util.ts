/**
 * Fidelity: upstream's multi provider (sigs.k8s.io/multicluster-runtime's providers/multi, run by
 * tools/go-upstream-providers) and MultiProvider each compose a kubeconfig file provider as `files` and a namespace
 * provider as `ns`, and watch one fleet side by side with the same ConfigMap controller, through the same steps
 * (tools/test-setup/src/cross-check). Both must engage the same members under the same `<provider>#<cluster>` names
 * and reconcile the same objects at the same state. (Upstream's kubeconfig Secret provider engages through the
 * manager itself, bypassing multi's names, so it cannot be composed there; the file provider stands in.)
 *
 * The scenario runs on any API server tier: `cross-check.test.ts` in memory, `cross-check.real.test.ts` on real
 * kube-apiservers. Two servers: the host, whose namespaces are `ns` members, and another that a file reaches.
 */
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeconfigOptions } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { NamespaceProvider } from '@multicluster-runtime/provider-namespace';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Member } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { adminClient, crossCheckSides } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { startTsSide } from '../../../../tools/test-setup/src/cross-check/ts-side.test-util.js';
import {
  UpstreamProviders,
  buildUpstreamProviders,
  goMissing,
} from '../../../../tools/test-setup/src/cross-check/upstream-providers.test-util.js';
import { MultiProvider } from '../multi-provider.js';

/** An API server of either tier, as the scenario uses it. */
export interface FleetServer {
  kubeconfig(options?: KubeconfigOptions): string;
}

/** Starts the two servers (the first is the host); `stop` stops both. */
export type StartServers = () => Promise<{ servers: [FleetServer, FleetServer]; stop: () => Promise<void> }>;

/** How long a step may take to settle; a step's test gets twice that (it may wait twice). */
const SETTLE_MS = 60_000;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };

const missing = await goMissing();

export function multiProviderCrossCheck(tier: string, startServers: StartServers): void {
  describe.skipIf(missing !== undefined)(
    missing
      ? `upstream Go multi provider cross-check (${tier}) skipped: ${missing}`
      : `upstream's multi provider and MultiProvider see the same fleet (${tier})`,
    { timeout: 2 * SETTLE_MS + 30_000 },
    () => {
      const sides = crossCheckSides(SETTLE_MS);
      const { check } = sides;
      let servers: [FleetServer, FleetServer];
      let stopServers = async () => {};
      let clients: ReturnType<typeof adminClient>[] = [];
      let bin = '';
      let dir = '';
      let staging = '';

      beforeAll(async () => {
        // A cold Go build cache compiles client-go and controller-runtime: minutes. .ci/run builds first.
        const mk = () => mkdtemp(join(tmpdir(), 'multi-cross-check-'));
        let started: Awaited<ReturnType<StartServers>>;
        [bin, started, dir, staging] = await Promise.all([buildUpstreamProviders(25 * 60_000), startServers(), mk(), mk()]);
        servers = started.servers;
        stopServers = started.stop;
        clients = servers.map((s) => adminClient(s.kubeconfig()));
      }, 30 * 60_000);
      afterAll(async () => {
        await sides.stop();
        for (const c of clients) await c.close();
        await stopServers();
        for (const d of [dir, staging]) if (d) await rm(d, { recursive: true, force: true });
      }, 60_000);

      const host = () => clients[0]!.client;
      /** The `ns` member of a host namespace. */
      const ns = (namespace: string): Member => ({ name: `ns#${namespace}`, namespace, client: host() });
      /** The `files` member of a file's context, reaching server `server`. */
      const file = (name: string, context: string, server: number): Member => ({
        name: `files#${join(dir, name)}+${context}`,
        client: clients[server]!.client,
      });
      /** The host's namespaces before the scenario (default, kube-system, …). */
      let system: string[] = [];
      const namespaces = (...names: string[]): Member[] => [...system, ...names].map(ns);
      /** Writes a kubeconfig outside the watched folder and renames it in, so it is never read half-written. */
      const putKubeconfig = async (name: string, context: string, server: number) => {
        const tmp = join(staging, name);
        await writeFile(tmp, servers[server]!.kubeconfig({ contextName: context }), { mode: 0o600 });
        await rename(tmp, join(dir, name));
      };
      const addNamespace = async (name: string) => {
        await host().create({ ...NAMESPACE, metadata: { name } });
        await host().create({ ...CONFIGMAP, metadata: { name: 'settings', namespace: name }, data: { team: name } });
      };

      test('both engage the members of both providers present at start, under the same names', async () => {
        system = (await host().list(NAMESPACE)).items.map((n) => n.metadata.name!);
        await addNamespace('team-a');
        await putKubeconfig('a.kubeconfig', 'one', 1);
        await check.step(
          async () => {
            const hostFile = join(staging, 'host.kubeconfig');
            await writeFile(hostFile, servers[0].kubeconfig(), { mode: 0o600 });
            sides.go = UpstreamProviders.start(bin, ['--kubeconfig', hostFile, '--provider', 'multi', '--dirs', dir], sides.goObs);
            const hostConfig = new KubeConfig();
            hostConfig.loadFromString(servers[0].kubeconfig());
            sides.ts = await startTsSide(
              hostConfig,
              async (logger) => {
                const fleet = new MultiProvider({ logger });
                await fleet.add('files', new KubeconfigFileProvider({ paths: [dir], logger }));
                await fleet.add('ns', new NamespaceProvider({ logger }));
                return fleet;
              },
              sides.tsObs,
            );
          },
          { engaged: [file('a.kubeconfig', 'one', 1), ...namespaces('team-a')] },
        );
      });

      test('members added to either provider are engaged', async () => {
        await check.step(
          async () => {
            await addNamespace('team-b');
            await putKubeconfig('b.kubeconfig', 'two', 0);
          },
          { engaged: [file('a.kubeconfig', 'one', 1), file('b.kubeconfig', 'two', 0), ...namespaces('team-a', 'team-b')] },
        );
      });

      test('objects that change are reconciled at their new state by both', async () => {
        await check.step(
          async () => {
            await clients[1]!.client.create({ ...CONFIGMAP, metadata: { name: 'extra', namespace: 'default' }, data: { more: 'yes' } });
            await host().patch(CONFIGMAP, { namespace: 'team-a', name: 'settings' }, { type: 'merge', body: { data: { owner: 'A' } } });
          },
          { engaged: [file('a.kubeconfig', 'one', 1), file('b.kubeconfig', 'two', 0), ...namespaces('team-a', 'team-b')] },
        );
      });

      test('members removed from either provider are disengaged (a namespace being deleted only here: see provider-namespace)', async () => {
        await check.step(
          async () => {
            await unlink(join(dir, 'a.kubeconfig'));
            await host().delete(NAMESPACE, { name: 'team-b' });
          },
          {
            engaged: [file('b.kubeconfig', 'two', 0), ...namespaces('team-a')],
            goEngaged: [file('b.kubeconfig', 'two', 0), ...namespaces('team-a', 'team-b')],
          },
        );
      });
    },
  );
}
