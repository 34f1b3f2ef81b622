/** fieldValidation for custom resources: unknown (pruned) fields are a 400 under Strict and a warning under Warn. */
import { badRequest } from '../../api/status-error.js';
import type { WriteOptions } from './write-options.js';

export function checkUnknownFields(pruned: readonly string[], opts: WriteOptions): void {
  if (pruned.length === 0) return;
  const messages = pruned.map((p) => `unknown field "${p}"`);
  if (opts.fieldValidation === 'Strict') throw badRequest(`strict decoding error: ${messages.join(', ')}`);
  if (opts.fieldValidation === 'Warn') opts.warnings?.push(...messages);
}
