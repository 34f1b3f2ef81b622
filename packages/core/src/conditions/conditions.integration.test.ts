/** Condition semantics over HTTP on the in-memory API server (the real tier runs the same cases in toolkit.real.test.ts). */
import { afterAll, beforeAll, describe } from 'vitest';
import { startMemoryTier, type Tier } from '../cluster/tier.test-util.js';
import { conditionCases } from './conditions.cases.test-util.js';

let tier: Tier;
beforeAll(async () => {
  tier = await startMemoryTier();
});
afterAll(async () => {
  await tier?.close();
});

describe('conditions on the in-memory API server', () => {
  conditionCases(() => tier);
});
