/**
 * Patch: JSON patch, merge patch, strategic merge patch (built-ins only; 415 for custom resources, as
 * apiextensions-apiserver), and server-side apply (create-on-apply, fieldManager required, managedFields recorded).
 */
import { required, forbiddenField } from '../../api/field-error.js';
import { JsonPatchError, applyJsonPatch } from '../../api/patch/json-patch.js';
import { applyMergePatch, isPlainObject } from '../../api/patch/merge-patch.js';
import { StrategicMergePatchError, applyStrategicMergePatch } from '../../api/patch/strategic-merge-patch.js';
import { listStrategiesFor } from '../../api/builtin-list-strategies.js';
import {
  OPTIMISTIC_LOCK_MESSAGE,
  StatusError,
  badRequest,
  conflict,
  invalid,
  notFound,
  unsupportedMediaType,
} from '../../api/status-error.js';
import type { StoredObject } from '../../storage/types.js';
import { valueText } from '../../api/value-text.js';
import type { ApiState } from '../api-state.js';
import { decodeJson, decodeYamlOrJson, requireObject } from '../body.js';
import type { ObjectTarget } from '../object-target.js';
import { objectKey, present } from '../object-target.js';
import { recordApply } from '../managed-fields.js';
import { checkName, objectFromBody } from './body-checks.js';
import { createObject } from './create.js';
import { badPatchResult, checkAppliedObject, decodeObject } from './decode-object.js';
import type { WriteResult } from './update.js';
import { applyUpdate } from './update.js';
import type { WriteOptions } from './write-options.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export interface PatchOptions extends WriteOptions {
  readonly force: boolean | undefined;
  /** Whether fieldManager came from the query (apply never falls back to the User-Agent). */
  readonly explicitFieldManager: boolean;
}

export function patchObject(state: ApiState, target: ObjectTarget, mediaType: string, body: Buffer, opts: PatchOptions): WriteResult {
  const { type } = target;
  const gr = { group: type.group, resource: type.resource };
  const accepted = type.custom ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH] : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
  if (!accepted.includes(mediaType)) throw unsupportedMediaType(accepted);
  const isApply = mediaType === APPLY_PATCH;
  if (!isApply && opts.force !== undefined)
    throw invalid('meta.k8s.io', 'PatchOptions', '', [forbiddenField('force', 'may not be specified for non-apply patch')]);
  if (isApply && (!opts.explicitFieldManager || !opts.fieldManager))
    throw invalid('meta.k8s.io', 'PatchOptions', '', [required('fieldManager', 'is required for apply patch')]);

  const patch = isApply ? decodeYamlOrJson(body) : decodeJson(body);
  opts = { ...opts, applying: isApply };
  const key = objectKey(target);
  const old = state.store.get(key);
  if (!old) {
    if (!isApply || target.subresource !== undefined) throw notFound(gr, target.name);
    const applied = objectFromBody(target, requireObject(patch));
    checkName(applied, target.name);
    checkAppliedObject(type, target.version, applied);
    recordApply(applied, undefined, applied, opts.fieldManager!, target, opts.force === true);
    return { object: createObject(state, target, applied, opts), created: true };
  }

  const current = present(old, type, target.version);
  let patched: unknown;
  try {
    if (mediaType === JSON_PATCH) patched = applyJsonPatch(current, patch);
    else if (mediaType === MERGE_PATCH) patched = applyMergePatch(current, requireObject(patch));
    else if (mediaType === STRATEGIC_MERGE_PATCH)
      patched = applyStrategicMergePatch(current, patch, listStrategiesFor(type, target.version));
    else {
      const applied = objectFromBody(target, requireObject(patch));
      checkName(applied, target.name);
      checkAppliedObject(type, target.version, applied);
      patched = type.custom
        ? applyMergePatch(current, applied)
        : applyStrategicMergePatch(current, applied, listStrategiesFor(type, target.version));
      recordApply(patched as StoredObject, old, applied, opts.fieldManager!, target, opts.force === true);
    }
  } catch (err) {
    if (err instanceof StatusError) throw err;
    if (err instanceof JsonPatchError || err instanceof StrategicMergePatchError) throw new StatusError(422, 'Invalid', err.message);
    throw badRequest(`the patch could not be applied: ${(err as Error).message}`);
  }
  if (!isPlainObject(patched) || !isPlainObject(patched['metadata']))
    throw new StatusError(422, 'Invalid', 'the patched object must have metadata');
  const next = patched as StoredObject;
  // A resourceVersion or uid written by the patch is a precondition (MergeFromWithOptimisticLock relies on it).
  if (next.metadata.resourceVersion !== undefined && next.metadata.resourceVersion !== old.metadata.resourceVersion)
    throw conflict(gr, target.name, OPTIMISTIC_LOCK_MESSAGE);
  const uid = (next.metadata as Record<string, unknown>)['uid'];
  const oldUid = (old.metadata as Record<string, unknown>)['uid'];
  if (uid !== undefined && uid !== oldUid)
    throw conflict(
      gr,
      target.name,
      `Precondition failed: UID in precondition: ${valueText(uid)}, UID in object meta: ${valueText(oldUid)}`,
    );
  next.metadata.resourceVersion = old.metadata.resourceVersion;
  if (next.metadata.name !== target.name)
    throw badRequest(`the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${target.name})`);
  // A patched object that does not decode is the patch's fault: 422, not the 400 of a bad update body.
  if (!isApply && !type.custom) decodeObject(type, target.version, next, opts, badPatchResult(next));
  return { object: applyUpdate(state, target, next, old, opts), created: false };
}
