import type { SuiteContext } from '../context.js';

export function deleteCases(_ctx: SuiteContext): void {}
