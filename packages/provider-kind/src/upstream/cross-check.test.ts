/**
 * Fidelity: upstream's kind provider (sigs.k8s.io/multicluster-runtime/providers/kind v0.23.1, run by
 * tools/go-upstream-providers/kind) and KindProvider run side by side on one fleet of "kind clusters", each with the
 * same ConfigMap controller, through the same steps (tools/test-setup/src/cross-check). Both read the fleet through
 * kind's own code: upstream links kind's library, KindProvider runs the real kind CLI (tools/kind-cli), and both
 * drive tools/fake-kind's docker stand-in, whose state file maps cluster names to in-memory API servers. Both must
 * engage the same clusters under the same names and reconcile the same objects.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Member } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { adminClient, crossCheckSides } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { startTsSide } from '../../../../tools/test-setup/src/cross-check/ts-side.test-util.js';
import {
  UpstreamProviders,
  buildUpstreamProviders,
  goMissing,
} from '../../../../tools/test-setup/src/cross-check/upstream-providers.test-util.js';
import { fakeKindBin } from '../kind-fixture.test-util.js';
import { KindProvider } from '../provider.js';

const run = promisify(execFile);
const kindCliBuild = resolve(import.meta.dirname, '../../../../tools/kind-cli/build.sh');
/** How long a step may take to settle (upstream polls kind every 2 s); a step's test gets twice that. */
const SETTLE_MS = 60_000;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const PREFIX = 'fleet-';

const missing = await goMissing();

describe.skipIf(missing !== undefined)(
  missing ? `upstream Go kind provider cross-check skipped: ${missing}` : "upstream's kind provider and KindProvider see the same fleet",
  { timeout: 2 * SETTLE_MS + 30_000 },
  () => {
    const sides = crossCheckSides(SETTLE_MS);
    const { check } = sides;
    const servers = new Map<string, ApiServer>();
    const clusters: Record<string, string> = {};
    const clients = new Map<string, ReturnType<typeof adminClient>>();
    let host: ApiServer;
    let dir = '';
    let bin = '';
    let kind = '';
    let env: Record<string, string> = {};

    /** Writes the stand-in's state whole (renamed into place), so a poll never reads it half-written. */
    const save = async () => {
      await writeFile(join(dir, 'state.json.tmp'), JSON.stringify({ clusters }));
      await rename(join(dir, 'state.json.tmp'), join(dir, 'state.json'));
    };
    /** Starts a cluster's API server with a ConfigMap; `publish` makes it a kind cluster the stand-in lists. */
    const startCluster = async (name: string) => {
      const server = await startApiServer({ name });
      servers.set(name, server);
      const client = adminClient(server.kubeconfig());
      clients.set(name, client);
      await client.client.create({ ...CONFIGMAP, metadata: { name: 'settings', namespace: 'default' }, data: { cluster: name } });
    };
    const publish = async (name: string) => {
      clusters[name] = servers.get(name)!.kubeconfig();
      await save();
    };
    const member = (name: string): Member => ({ name, client: clients.get(name)!.client });

    beforeAll(async () => {
      // Cold Go build caches compile client-go, controller-runtime and kind: minutes. .ci/run builds both first.
      const [goBin, kindOut] = await Promise.all([
        buildUpstreamProviders(25 * 60_000, 'kind'),
        run(kindCliBuild, [], { timeout: 25 * 60_000, maxBuffer: 16 * 1024 * 1024 }),
      ]);
      bin = goBin;
      kind = join(kindOut.stdout.trim().split('\n').pop()!, 'kind');
      [host, dir] = await Promise.all([startApiServer({ name: 'host' }), mkdtemp(join(tmpdir(), 'kind-cross-check-'))]);
      env = { PATH: `${fakeKindBin}:${process.env['PATH'] ?? ''}`, FAKE_KIND_STATE: join(dir, 'state.json') };
      for (const name of ['fleet-a', 'fleet-b', 'other']) {
        await startCluster(name);
        await publish(name);
      }
    }, 30 * 60_000);
    afterAll(async () => {
      await sides.stop();
      for (const c of clients.values()) await c.close();
      await Promise.all([host, ...servers.values()].map((s) => s?.close()));
      if (dir) await rm(dir, { recursive: true, force: true });
    }, 60_000);

    test('both engage the kind clusters with the prefix, under their kind names', async () => {
      await check.step(
        async () => {
          const hostFile = join(dir, 'host.kubeconfig');
          await writeFile(hostFile, host.kubeconfig(), { mode: 0o600 });
          sides.go = UpstreamProviders.start(bin, ['--kubeconfig', hostFile, '--prefix', PREFIX], sides.goObs, env);
          const hostConfig = new KubeConfig();
          hostConfig.loadFromString(host.kubeconfig());
          sides.ts = await startTsSide(
            hostConfig,
            (logger) => new KindProvider({ binary: kind, env, namePrefix: PREFIX, pollIntervalMs: 500, logger }),
            sides.tsObs,
          );
        },
        { engaged: [member('fleet-a'), member('fleet-b')] },
      );
    });

    test('a kind cluster created later is engaged', async () => {
      await startCluster('fleet-c');
      await check.step(() => publish('fleet-c'), { engaged: [member('fleet-a'), member('fleet-b'), member('fleet-c')] });
    });

    test('objects that change are reconciled at their new state by both', async () => {
      await check.step(
        async () => {
          await member('fleet-a').client.patch(
            CONFIGMAP,
            { namespace: 'default', name: 'settings' },
            { type: 'merge', body: { data: { owner: 'A' } } },
          );
          await member('fleet-c').client.delete(CONFIGMAP, { namespace: 'default', name: 'settings' });
        },
        { engaged: [member('fleet-a'), member('fleet-b'), member('fleet-c')] },
      );
    });

    test('on purpose: a cluster whose kubeconfig changes (a new token) is engaged anew here; upstream keeps the old connection', async () => {
      await check.step(
        async () => {
          const server = servers.get('fleet-a')!;
          server.addToken('rotated-kind-token', { username: 'rotated', groups: ['system:masters'] });
          clusters['fleet-a'] = server.kubeconfig({ user: { token: 'rotated-kind-token' } });
          await save();
        },
        { engaged: [member('fleet-a'), member('fleet-b'), member('fleet-c')], reengaged: ['fleet-a'], goReengaged: [] },
      );
    });

    test('a deleted kind cluster is disengaged', async () => {
      await check.step(
        async () => {
          delete clusters['fleet-b'];
          await save();
        },
        { engaged: [member('fleet-a'), member('fleet-c')] },
      );
    });
  },
);
