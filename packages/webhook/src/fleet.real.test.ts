/** The fleet suite on real kube-apiservers (the real tier; needs KUBEBUILDER_ASSETS, else one skipped test says why). */
import { test } from 'vitest';
import { assetsDirFromEnv, startTestEnvironment } from '@multicluster-runtime/envtest/real';
import { fleetSuite } from './fleet.test-util.js';

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  test('two real kube-apiservers: per-member configurations, a denial naming member A, a default in member B, removal with B', async () => {
    await fleetSuite((name) => startTestEnvironment({ name }));
  }, 300_000);
}
