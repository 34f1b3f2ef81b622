/** createSubresource on the in-memory server; toolkit.real.test.ts runs the same cases on a real kube-apiserver. */
import { afterAll, beforeAll, describe } from 'vitest';
import { startMemoryTier, type Tier } from '../cluster/tier.test-util.js';
import { createSubresourceCases } from './create-subresource.cases.test-util.js';

describe('createSubresource on the in-memory server', () => {
  let tier: Tier;
  beforeAll(async () => {
    tier = await startMemoryTier();
  });
  afterAll(async () => {
    await tier?.close();
  });
  createSubresourceCases(() => tier);
});
