/** createOrUpdate, createOrPatch and server-side apply on the in-memory API server (the real tier: toolkit.real.test.ts). */
import { afterAll, beforeAll, describe } from 'vitest';
import { startMemoryTier, type Tier } from '../cluster/tier.test-util.js';
import { createOrUpdateCases } from './create-or-update.cases.test-util.js';

let tier: Tier;
beforeAll(async () => {
  tier = await startMemoryTier();
});
afterAll(async () => {
  await tier?.close();
});

describe('createOrUpdate and apply on the in-memory API server', () => {
  createOrUpdateCases(() => tier);
});
