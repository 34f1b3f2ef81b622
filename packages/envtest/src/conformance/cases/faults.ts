import type { SuiteContext } from '../context.js';

export function faultCases(_ctx: SuiteContext): void {}
