/**
 * The environment variables controller-runtime's envtest reads besides KUBEBUILDER_ASSETS, so a CI set up for Go
 * projects behaves the same here: KUBEBUILDER_CONTROLPLANE_START_TIMEOUT / _STOP_TIMEOUT (Go durations such as
 * "90s" or "1m30s") and KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true (control-plane output on stderr).
 */
import { TestEnvironmentOptionsError } from './errors.js';

const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration ("1m30s", "500ms") into milliseconds; throws TestEnvironmentOptionsError on bad syntax. */
export function parseGoDuration(text: string, variable: string): number {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (trimmed === '' || parts.map((part) => part[0]).join('') !== trimmed) {
    throw new TestEnvironmentOptionsError(`${variable}=${JSON.stringify(text)} is not a duration such as "90s" or "1m30s"`);
  }
  return parts.reduce((total, part) => total + Number(part[1]) * units[part[2]!]!, 0);
}

/** Timeouts from the environment, when set. */
export function timeoutsFromEnv(env: NodeJS.ProcessEnv = process.env): { startTimeoutMs?: number; stopGraceMs?: number } {
  const start = env['KUBEBUILDER_CONTROLPLANE_START_TIMEOUT'];
  const stop = env['KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT'];
  return {
    ...(start ? { startTimeoutMs: parseGoDuration(start, 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT') } : {}),
    ...(stop ? { stopGraceMs: parseGoDuration(stop, 'KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT') } : {}),
  };
}

/** An output sink writing to stderr when KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT is "true", else undefined. */
export function attachedOutputFromEnv(env: NodeJS.ProcessEnv = process.env): ((component: string, line: string) => void) | undefined {
  if (env['KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT']?.trim().toLowerCase() !== 'true') return undefined;
  return (component, line) => process.stderr.write(`[${component}] ${line}\n`);
}
