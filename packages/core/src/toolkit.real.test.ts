/**
 * The toolkit's HTTP cases on a real kube-apiserver + etcd (the real tier; needs KUBEBUILDER_ASSETS, else one skipped
 * test says why), one environment for all: conditions validated by the API as metav1.Condition, the finalizer
 * registry's writes, createOrUpdate/createOrPatch outcomes and server-side apply's field ownership. The in-memory server runs the same cases in each concept's *.integration.test.ts.
 */
import { assetsDirFromEnv } from '@multicluster-runtime/envtest/real';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startRealTier, type Tier } from './cluster/tier.test-util.js';
import { conditionCases } from './conditions/conditions.cases.test-util.js';
import { createOrUpdateCases } from './createorupdate/create-or-update.cases.test-util.js';
import { finalizerCases } from './finalizer/finalizer.cases.test-util.js';

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
  });
}
