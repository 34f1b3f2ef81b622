/**
 * A write's object read as the real server's decoder reads it, before any rule of the kind runs: a custom resource
 * pruned and defaulted by its structural schema, a built-in decoded by its Go field types (builtin-decode.ts). Unknown
 * fields are then judged by fieldValidation: dropped silently (Ignore), dropped with a warning (Warn, the default), or
 * a 400 (Strict). How a failure is reported depends on the verb, so the caller may say how to refuse.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { BuiltinDecodeError, builtinDefinition, decodeBuiltin, zeroField } from '../../api/builtin-decode.js';
import { invalidValue } from '../../api/field-error.js';
import { pruneAndDefaultObject } from '../../api/prune.js';
import { groupVersion, type ResourceType } from '../../api/resource-type.js';
import { StatusError, badRequest, invalid } from '../../api/status-error.js';
import type { StoredObject } from '../../storage/types.js';
import type { WriteOptions } from './write-options.js';

/** Builds the error a decoding failure becomes. */
export type Refusal = (message: string) => StatusError;

/** How create and update refuse: 400, naming the kind (`Deployment in version "v1" cannot be handled as a Deployment: …`). */
export function badBody(type: ResourceType, version: string): Refusal {
  return (message) =>
    badRequest(type.custom ? message : `${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${message}`);
}

/** How a patch refuses: 422 on the field `patch`, quoting the patched object. */
export function badPatchResult(patched: StoredObject): Refusal {
  const text = JSON.stringify(patched);
  return (message) => invalid('', '', '', [invalidValue('patch', text, message)]);
}

export function decodeObject(type: ResourceType, version: string, obj: StoredObject, opts: WriteOptions, refuse: Refusal): void {
  let dropped: string[];
  if (type.custom) dropped = pruneAndDefaultObject(obj, type.schemas?.[version]);
  else {
    const definition = builtinDefinition(groupVersion(type.group, version), type.kind);
    if (!definition) return;
    try {
      dropped = decodeBuiltin(obj, definition);
    } catch (err) {
      if (err instanceof BuiltinDecodeError) throw refuse(err.message);
      throw err;
    }
  }
  if (dropped.length === 0) return;
  const messages = dropped.map((p) => `unknown field "${p}"`);
  if (opts.fieldValidation === 'Strict') throw refuse(`strict decoding error: ${messages.join(', ')}`);
  if (opts.fieldValidation !== 'Ignore') opts.warnings?.push(...messages);
}

/**
 * A server-side apply body of a built-in kind must fit the kind's type as it is: an unknown field or a value of the
 * wrong type is a 500 whatever fieldValidation says, as the real server's typed patch conversion answers.
 */
export function checkAppliedObject(type: ResourceType, version: string, applied: StoredObject): void {
  const definition = type.custom ? undefined : builtinDefinition(groupVersion(type.group, version), type.kind);
  if (!definition) return;
  const meta = applied.metadata as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const subject = `${text(meta['namespace'])}/${text(meta['name'])}`;
  const fail = (message: string) =>
    new StatusError(
      500,
      '',
      `failed to create typed patch object (${subject}; ${groupVersion(type.group, version)}, Kind=${type.kind}): ${message}`,
    );
  try {
    const dropped = decodeBuiltin(cloneJson(applied), definition);
    if (dropped.length > 0) throw fail(`.${dropped[0]}: field not declared in schema`);
  } catch (err) {
    if (err instanceof BuiltinDecodeError) throw fail(err.applyMessage);
    throw err;
  }
}

/** Where a server rule dropped a built-in's status (create resets it), the zero status Go would write instead. */
export function fillZeroStatus(type: ResourceType, version: string, obj: StoredObject): void {
  const definition =
    type.custom || obj['status'] !== undefined ? undefined : builtinDefinition(groupVersion(type.group, version), type.kind);
  const zero = definition ? zeroField(definition, 'status') : undefined;
  if (zero !== undefined) obj['status'] = zero;
}
