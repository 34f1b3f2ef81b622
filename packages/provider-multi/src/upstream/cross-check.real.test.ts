/**
 * MultiProvider beside upstream's multi provider (scenario.test-util.ts) on real kube-apiservers (the real tier;
 * needs KUBEBUILDER_ASSETS, else one skipped test says why).
 */
import { assetsDirFromEnv, startTestEnvironment } from '@multicluster-runtime/envtest/real';
import { test } from 'vitest';
import { multiProviderCrossCheck } from './scenario.test-util.js';

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  multiProviderCrossCheck('real kube-apiservers', async () => {
    const servers = await Promise.all([startTestEnvironment(), startTestEnvironment()]);
    return { servers, stop: async () => void (await Promise.all(servers.map((s) => s.stop()))) };
  });
}
