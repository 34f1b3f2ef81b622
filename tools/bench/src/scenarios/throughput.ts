import type { ScenarioContext, ScenarioResult } from './scenario.js';
export async function throughputScenario(_ctx: ScenarioContext): Promise<ScenarioResult> {
  throw new Error('not yet');
}
