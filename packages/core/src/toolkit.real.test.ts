/**
 * The toolkit's HTTP cases on a real kube-apiserver + etcd (the real tier; needs KUBEBUILDER_ASSETS, else one skipped
 * test says why), one environment for all: conditions validated by the API as metav1.Condition, the finalizer
 * registry's writes, createOrUpdate/createOrPatch outcomes, server-side apply's field ownership, and Events: 10
 * identical warnings become one Event with a series, which `kubectl get events` (the core/v1 view) shows. The in-memory server runs the same cases in each concept's *.integration.test.ts.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { assetsDirFromEnv } from '@multicluster-runtime/envtest/real';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newCluster } from './cluster/cluster.js';
import { startRealTier, type Tier } from './cluster/tier.test-util.js';
import { conditionCases } from './conditions/conditions.cases.test-util.js';
import { createOrUpdateCases } from './createorupdate/create-or-update.cases.test-util.js';
import { createSubresourceCases } from './client/create-subresource.cases.test-util.js';
import { finalizerCases } from './finalizer/finalizer.cases.test-util.js';
import { configMap } from './testing/fixtures.js';

const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('toolkit on a real kube-apiserver', () => {
    let tier: Tier;
    beforeAll(async () => {
      tier = (await startRealTier())!;
    }, 120_000);
    afterAll(async () => {
      await tier?.close();
    }, 60_000);

    describe('conditions', () => conditionCases(() => tier));
    describe('finalizer registry', () => finalizerCases(() => tier));
    describe('createOrUpdate, createOrPatch and server-side apply', () => createOrUpdateCases(() => tier));
    describe('createSubresource', () => createSubresourceCases(() => tier));

    test.skipIf(!KUBECTL)('10 identical warnings are one Event with a series; kubectl get events shows it', async () => {
      const ns = await tier.namespace();
      const kc = new KubeConfig();
      kc.loadFromString(tier.kubeconfig);
      const cluster = newCluster(kc, { name: 'real-events' });
      const stop = new AbortController();
      const running = cluster.start(stop.signal);
      const cm = await cluster.client.create(configMap('broken', { port: 'eighty' }, ns));
      const recorder = cluster.getEventRecorderFor('example.com/warner');
      for (let i = 0; i < 10; i++) recorder.event(cm, 'Warning', 'InvalidConfig', 'key "port" is not a number', { action: 'Validate' });
      stop.abort(); // stopping the cluster writes the pending series count
      await running;

      const dir = await mkdtemp(join(tmpdir(), 'real-events-'));
      try {
        await writeFile(join(dir, 'kubeconfig'), tier.kubeconfig);
        const kubectl = async (...args: string[]) =>
          (await promisify(execFile)(KUBECTL!, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args]))
            .stdout;
        const core = JSON.parse(await kubectl('get', 'events', '-n', ns, '-o', 'json')) as {
          items: {
            reason: string;
            type: string;
            message: string;
            involvedObject: { kind: string; name: string };
            series?: { count: number };
          }[];
        };
        expect(core.items.map((e) => [e.type, e.reason, e.message, e.involvedObject.kind, e.involvedObject.name, e.series?.count])).toEqual(
          [['Warning', 'InvalidConfig', 'key "port" is not a number', 'ConfigMap', 'broken', 10]],
        );
        expect(await kubectl('get', 'events', '-n', ns)).toMatch(/Warning\s+InvalidConfig\s+configmap\/broken/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
