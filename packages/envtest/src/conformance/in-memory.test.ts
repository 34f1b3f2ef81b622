import type { TokenUser } from '../auth/token-user.js';
import { startApiServer } from '../index.js';
import { conformanceSuite } from './suite.js';

conformanceSuite('in-memory', async () => {
  const server = await startApiServer({ crdEstablishDelayMs: 20 });
  return {
    kubeconfig: server.kubeconfig(),
    url: server.url,
    close: () => server.close(),
    faults: server.faults,
    compact: () => server.compact(),
    addToken: (token, user, options) => server.addToken(token, user as TokenUser, options), // as a JavaScript caller would: checked at run time
  };
});
