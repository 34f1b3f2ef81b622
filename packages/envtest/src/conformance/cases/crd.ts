import type { SuiteContext } from '../context.js';

export function crdCases(_ctx: SuiteContext): void {}
