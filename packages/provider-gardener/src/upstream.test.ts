/**
 * Fidelity: tools/gardener-client (Gardener's own Go API types and the calls the upstream Go gardener provider makes,
 * on the controller-runtime it pins) reads the same fake garden and seed as GardenerProvider. Gardener's types must
 * decode the fake's Shoots, extensions Clusters and kubeconfig answers, the kubeconfigs must work from Go's client,
 * and names and readiness must match upstream's except where the README says we differ on purpose: hibernated and
 * deleting shoots are not engaged, and seed members have no leading slash. Skips with the reason where Go is missing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { newManager, silentLogger } from '@multicluster-runtime/core';
import { kubeconfigOf } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { startGardenServer, type GardenServer } from '@multicluster-runtime/envtest/gardener';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GardenerProvider } from './index.js';
import { goMissing } from '../../../tools/test-setup/src/go-missing.test-util.js';

const run = promisify(execFile);
const buildScript = fileURLToPath(new URL('../../../tools/gardener-client/build.sh', import.meta.url));

interface Seen {
  name: string;
  ready: boolean;
  server?: string;
  namespaces?: number;
  expires?: string;
  error?: string;
}

const missing = await goMissing('the cross-check builds tools/gardener-client with Go >= 1.26 and the Go module proxy');

describe.skipIf(missing !== undefined)(
  `GardenerProvider against Gardener's Go types and upstream's calls${missing ? ` (${missing})` : ''}`,
  () => {
    let bin: string;
    let garden: GardenServer;
    let shoots: ApiServer[];
    let dir: string;
    beforeAll(async () => {
      const { stdout } = await run(buildScript, [], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
      bin = stdout.trim().split('\n').pop()!;
      garden = await startGardenServer({ name: 'garden' });
      shoots = await Promise.all(['a', 'b', 'c'].map((name) => startApiServer({ name })));
      dir = mkdtempSync(join(tmpdir(), 'gardener-upstream-'));
    }, 660_000);
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await Promise.all([garden, ...shoots].map((s) => s?.close()));
    });

    async function upstream(topology: 'garden' | 'seed'): Promise<Seen[]> {
      const file = join(dir, 'garden.kubeconfig');
      writeFileSync(file, garden.kubeconfig(), { mode: 0o600 });
      const { stdout } = await run(bin, ['-kubeconfig', file, '-topology', topology, '-expiration-seconds', '600'], { timeout: 60_000 });
      return stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Seen);
    }

    async function ours(topology: 'garden' | 'seed', settled: (provider: GardenerProvider) => boolean) {
      const provider = new GardenerProvider({ topology, retry: { initialMs: 50, maxMs: 400 } });
      const mgr = newManager(kubeconfigOf(garden), provider, { logger: silentLogger });
      const stop = new AbortController();
      const running = mgr.start(stop.signal);
      try {
        await expect.poll(() => settled(provider), { timeout: 15_000 }).toBe(true);
        return { engaged: provider.names(), statuses: provider.statuses() };
      } finally {
        stop.abort();
        await running;
      }
    }

    test('garden: same names, same readiness but for hibernated and deleting shoots; kubeconfigs work from Go', async () => {
      const [a, b, c] = shoots as [ApiServer, ApiServer, ApiServer];
      await garden.fixtures.createShoot('dev', 'alpha', { server: a });
      await garden.fixtures.createShoot('dev', 'creating', { server: b, lastOperation: { type: 'Create', state: 'Processing' } });
      await garden.fixtures.createShoot('dev', 'unpicked', { server: b, lastOperation: null });
      await garden.fixtures.createShoot('dev', 'broken', { server: b, lastOperation: { type: 'Reconcile', state: 'Failed' } });
      await garden.fixtures.createShoot('ops', 'sleepy', { server: c, hibernated: true });
      await garden.fixtures.createShoot('ops', 'leaving', { server: c, lastOperation: { type: 'Delete', state: 'Processing' } });

      const go = await upstream('garden');
      expect(go.map((s) => [s.name, s.ready])).toEqual([
        ['garden-dev/alpha', true],
        ['garden-dev/broken', true],
        ['garden-dev/creating', false],
        ['garden-dev/unpicked', false],
        ['garden-ops/leaving', true],
        ['garden-ops/sleepy', true],
      ]);
      for (const s of go.filter((x) => x.ready)) {
        expect(s.error, s.name).toBeUndefined();
        expect(s.namespaces, s.name).toBeGreaterThan(0);
        expect(Date.parse(s.expires!) - Date.now(), s.name).toBeGreaterThan(590_000);
      }
      expect(go.find((s) => s.name === 'garden-dev/alpha')?.server).toBe(a.url);

      const { engaged, statuses } = await ours('garden', (p) => p.statuses().size === 6 && p.names().length === 2);
      expect(engaged).toEqual(['garden-dev/alpha', 'garden-dev/broken']);
      // On purpose (README, "Differences from upstream"): upstream engages these, we say why we do not.
      expect(statuses.get('garden-ops/sleepy')).toMatchObject({ state: 'notReady', reason: 'the shoot is hibernated' });
      expect(statuses.get('garden-ops/leaving')).toMatchObject({ state: 'notReady', reason: 'the shoot is being deleted' });
      for (const name of ['garden-dev/creating', 'garden-dev/unpicked']) expect(statuses.get(name)?.state, name).toBe('notReady');
    });

    test('seed: the same clusters, ready when their gardener Secret exists; names without the leading slash', async () => {
      const [a, b] = shoots as [ApiServer, ApiServer];
      const ready = await garden.fixtures.createSeedCluster('dev', 'alpha', a);
      const waiting = await garden.fixtures.createSeedCluster('dev', 'beta', b);
      await garden.fixtures.request('DELETE', `/api/v1/namespaces/${waiting}/secrets/gardener`);

      const go = await upstream('seed');
      expect(go.map((s) => [s.name, s.ready])).toEqual([
        [`/${ready}`, true],
        [`/${waiting}`, false],
      ]);
      expect(go[0]).toMatchObject({ server: a.url });
      expect(go[0]!.namespaces).toBeGreaterThan(0);

      const { engaged, statuses } = await ours('seed', (p) => p.statuses().size === 2 && p.names().length === 1);
      expect(engaged).toEqual([ready]);
      expect(statuses.get(waiting)?.state).toBe('notReady');
    });
  },
);
