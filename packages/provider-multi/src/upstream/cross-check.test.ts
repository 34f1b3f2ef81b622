/**
 * MultiProvider beside upstream's multi provider (scenario.test-util.ts) on in-memory API servers.
 */
import { startApiServer } from '@multicluster-runtime/envtest';
import { multiProviderCrossCheck } from './scenario.test-util.js';

multiProviderCrossCheck('in-memory servers', async () => {
  const servers = await Promise.all([startApiServer(), startApiServer()]);
  return { servers, stop: async () => void (await Promise.all(servers.map((s) => s.close()))) };
});
