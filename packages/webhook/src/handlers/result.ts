/** Building handler answers: allowed and denied results, as controller-runtime's Allowed/Denied helpers. */
import type { ValidationResult } from './types.js';

/** Allows the request, optionally with warnings the user sees. */
export function allowed(warnings?: readonly string[]): ValidationResult {
  return warnings?.length ? { allowed: true, warnings: [...warnings] } : { allowed: true };
}

/** Denies the request with a reason the user sees; code defaults to 403. */
export function denied(reason: string, options: { code?: number; warnings?: readonly string[] } = {}): ValidationResult {
  return {
    allowed: false,
    reason,
    ...(options.code === undefined ? {} : { code: options.code }),
    ...(options.warnings?.length ? { warnings: [...options.warnings] } : {}),
  };
}
