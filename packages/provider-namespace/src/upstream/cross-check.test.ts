/**
 * NamespaceProvider beside upstream's namespace provider (scenario.test-util.ts) on an in-memory API server.
 */
import { startApiServer } from '@multicluster-runtime/envtest';
import { namespaceProviderCrossCheck } from './scenario.test-util.js';

namespaceProviderCrossCheck('in-memory server', async () => {
  const server = await startApiServer();
  return { kubeconfig: server.kubeconfig(), stop: () => server.close() };
});
