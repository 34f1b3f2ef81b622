/**
 * The kubeconfig providers beside upstream's (scenarios.test-util.ts) on real kube-apiservers (the real tier; needs
 * KUBEBUILDER_ASSETS, else one skipped test says why).
 */
import { assetsDirFromEnv, startTestEnvironment } from '@multicluster-runtime/envtest/real';
import { test } from 'vitest';
import { fileProviderCrossCheck, secretProviderCrossCheck, type StartServers } from './scenarios.test-util.js';

const real: StartServers = async () => {
  const servers = await Promise.all([startTestEnvironment(), startTestEnvironment(), startTestEnvironment()]);
  return { servers, stop: async () => void (await Promise.all(servers.map((s) => s.stop()))) };
};

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  secretProviderCrossCheck('real kube-apiservers', real);
  fileProviderCrossCheck('real kube-apiservers', real);
}
