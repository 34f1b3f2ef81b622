/**
 * The kubeconfig providers beside upstream's (scenarios.test-util.ts) on in-memory API servers.
 */
import { startApiServer } from '@multicluster-runtime/envtest';
import { fileProviderCrossCheck, secretProviderCrossCheck, type StartServers } from './scenarios.test-util.js';

const inMemory: StartServers = async () => {
  const servers = await Promise.all([startApiServer(), startApiServer(), startApiServer()]);
  return { servers, stop: async () => void (await Promise.all(servers.map((s) => s.close()))) };
};

secretProviderCrossCheck('in-memory servers', inMemory);
fileProviderCrossCheck('in-memory servers', inMemory);
