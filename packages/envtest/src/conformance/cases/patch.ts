import type { SuiteContext } from '../context.js';

export function patchCases(_ctx: SuiteContext): void {}
