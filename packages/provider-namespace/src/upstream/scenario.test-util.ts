/**
 * Fidelity: upstream's namespace provider (sigs.k8s.io/multicluster-runtime's providers/namespace, run by
 * tools/go-upstream-providers) and NamespaceProvider watch the namespaces of one server side by side, each with the
 * same ConfigMap controller, through the same steps (tools/test-setup/src/cross-check). Both must engage the same
 * namespaces and reconcile the same objects at the same state. Upstream presents each namespace's objects as being in
 * `default`; the Go program reports the real namespace, so the facts compare.
 *
 * The scenario runs on any API server tier: `cross-check.test.ts` in memory, `cross-check.real.test.ts` on a real
 * kube-apiserver. Neither runs kube-controller-manager, so a deleted namespace stays Terminating, as it does while a
 * real cluster empties it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Member } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { adminClient, crossCheckSides } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { startTsSide } from '../../../../tools/test-setup/src/cross-check/ts-side.test-util.js';
import {
  UpstreamProviders,
  buildUpstreamProviders,
  goMissing,
} from '../../../../tools/test-setup/src/cross-check/upstream-providers.test-util.js';
import { NamespaceProvider } from '../provider.js';

/** Starts the server whose namespaces make the fleet; `stop` stops it. */
export type StartServer = () => Promise<{ kubeconfig: string; stop: () => Promise<void> }>;

/** How long a step may take to settle; a step's test gets twice that (it may wait twice). */
const SETTLE_MS = 60_000;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };

const missing = await goMissing();

export function namespaceProviderCrossCheck(tier: string, startServer: StartServer): void {
  describe.skipIf(missing !== undefined)(
    missing
      ? `upstream Go namespace provider cross-check (${tier}) skipped: ${missing}`
      : `upstream's namespace provider and NamespaceProvider see the same fleet (${tier})`,
    { timeout: 2 * SETTLE_MS + 30_000 },
    () => {
      const sides = crossCheckSides(SETTLE_MS);
      const { check } = sides;
      let server: Awaited<ReturnType<StartServer>>;
      let admin: ReturnType<typeof adminClient>;
      let bin = '';
      let tmp = '';

      beforeAll(async () => {
        // A cold Go build cache compiles client-go and controller-runtime: minutes. .ci/run builds first.
        [bin, server, tmp] = await Promise.all([
          buildUpstreamProviders(25 * 60_000),
          startServer(),
          mkdtemp(join(tmpdir(), 'namespace-cross-check-')),
        ]);
        admin = adminClient(server.kubeconfig);
      }, 30 * 60_000);
      afterAll(async () => {
        await sides.stop();
        await admin?.close();
        await server?.stop();
        if (tmp) await rm(tmp, { recursive: true, force: true });
      }, 60_000);

      const member = (namespace: string): Member => ({ name: namespace, namespace, client: admin.client });
      /** The namespaces the server had before the scenario (default, kube-system, …), then those it adds. */
      let system: string[] = [];
      const members = (...names: string[]): Member[] => [...system, ...names].map(member);
      const addNamespace = async (name: string) => {
        await admin.client.create({ ...NAMESPACE, metadata: { name } });
        await admin.client.create({ ...CONFIGMAP, metadata: { name: 'settings', namespace: name }, data: { team: name } });
      };

      test('both engage every namespace present at start', async () => {
        system = (await admin.client.list(NAMESPACE)).items.map((ns) => ns.metadata.name!);
        await addNamespace('team-a');
        await addNamespace('team-b');
        await check.step(
          async () => {
            const hostFile = join(tmp, 'host.kubeconfig');
            await writeFile(hostFile, server.kubeconfig, { mode: 0o600 });
            sides.go = UpstreamProviders.start(bin, ['--kubeconfig', hostFile, '--provider', 'namespace'], sides.goObs);
            const host = new KubeConfig();
            host.loadFromString(server.kubeconfig);
            sides.ts = await startTsSide(host, (logger) => new NamespaceProvider({ logger }), sides.tsObs);
          },
          { engaged: members('team-a', 'team-b') },
        );
      });

      test('a new namespace is engaged', async () => {
        await check.step(() => addNamespace('team-c'), { engaged: members('team-a', 'team-b', 'team-c') });
      });

      test('objects that change are reconciled at their new state by both, each in its own member', async () => {
        await check.step(
          async () => {
            await admin.client.patch(
              CONFIGMAP,
              { namespace: 'team-a', name: 'settings' },
              { type: 'merge', body: { data: { owner: 'A' } } },
            );
            await admin.client.create({
              ...CONFIGMAP,
              metadata: { name: 'extra', namespace: 'team-b' },
              data: { more: 'yes' },
            });
            await admin.client.delete(CONFIGMAP, { namespace: 'team-c', name: 'settings' });
          },
          { engaged: members('team-a', 'team-b', 'team-c') },
        );
      });

      test('on purpose: a namespace being deleted is disengaged here; upstream keeps it until it is gone', async () => {
        await check.step(() => admin.client.delete(NAMESPACE, { name: 'team-b' }), {
          engaged: members('team-a', 'team-c'),
          goEngaged: members('team-a', 'team-b', 'team-c'),
        });
      });
    },
  );
}
