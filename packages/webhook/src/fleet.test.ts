/** The fleet suite on in-memory API servers (see fleet.test-util.ts). */
import { test } from 'vitest';
import { startApiServer } from '@multicluster-runtime/envtest';
import { fleetSuite } from './fleet.test-util.js';

test('two in-memory members: per-member configurations, a denial naming member A, a default in member B, removal with B', async () => {
  await fleetSuite((name) => startApiServer({ name }));
}, 180_000);
