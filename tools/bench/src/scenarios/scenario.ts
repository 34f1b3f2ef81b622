/** What every scenario gets and gives back. */
import type { ImplSpec } from '../runner-process.js';

export interface ScenarioContext {
  quick: boolean;
  impls: readonly ImplSpec[];
  /** Progress lines (stderr), so stdout keeps only tables. */
  progress(line: string): void;
}

export interface ScenarioResult {
  name: string;
  title: string;
  /** What was run: sizes, rates, durations. */
  params: Record<string, unknown>;
  /** One entry per configuration × implementation. */
  results: Record<string, unknown>[];
  /** Failures of one implementation in one configuration (the rest still ran). */
  errors: { impl: string; config: string; message: string }[];
  table: string;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
