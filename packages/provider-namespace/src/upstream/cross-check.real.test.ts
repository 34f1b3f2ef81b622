/**
 * NamespaceProvider beside upstream's namespace provider (scenario.test-util.ts) on a real kube-apiserver (the real
 * tier; needs KUBEBUILDER_ASSETS, else one skipped test says why).
 */
import { assetsDirFromEnv, startTestEnvironment } from '@multicluster-runtime/envtest/real';
import { test } from 'vitest';
import { namespaceProviderCrossCheck } from './scenario.test-util.js';

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  namespaceProviderCrossCheck('real kube-apiserver', async () => {
    const env = await startTestEnvironment();
    return { kubeconfig: env.kubeconfig(), stop: () => env.stop() };
  });
}
