import type { ScenarioContext, ScenarioResult } from './scenario.js';
export async function latencyScenario(_ctx: ScenarioContext): Promise<ScenarioResult> {
  throw new Error('not yet');
}
