/**
 * The `scale` subresource (autoscaling/v1 Scale) of workloads and of CRDs that declare `subresources.scale`: GET
 * shows the object's replicas and selector as a Scale; PUT and PATCH (merge, JSON or strategic merge, applied to the
 * Scale) write `spec.replicas` through the object's own update, so its generation, managedFields, watch events and
 * resourceVersion precondition follow as for any update. Admission webhooks are not called for scale writes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cloneJson, labelSelectorFromObject, parseLabelSelector } from '@multicluster-runtime/apimachinery';
import { invalidValue } from '../../api/field-error.js';
import { JsonPatchError, applyJsonPatch } from '../../api/patch/json-patch.js';
import { applyMergePatch, isPlainObject } from '../../api/patch/merge-patch.js';
import type { ScalePaths } from '../../api/resource-type.js';
import { StatusError, invalid, notFound, unsupportedMediaType } from '../../api/status-error.js';
import type { StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';
import { decodeJson, decodeObjectBody, mediaType, readBody, requireObject } from '../body.js';
import { objectKey, type ObjectTarget } from '../object-target.js';
import { JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../ops/patch.js';
import { applyUpdate } from '../ops/update.js';
import { writeJson } from '../respond.js';
import { parseWriteParams } from '../write-params.js';

type Scale = { metadata?: { resourceVersion?: unknown }; spec?: { replicas?: unknown } };

/** Answers GET, PUT or PATCH on `<object>/scale`; the caller has authorized the verb. */
export async function handleScale(
  state: ApiState,
  req: IncomingMessage,
  res: ServerResponse,
  params: URLSearchParams,
  target: ObjectTarget,
  verb: 'get' | 'update' | 'patch',
): Promise<void> {
  const { type } = target;
  const paths = type.scale!;
  const old = state.store.get(objectKey(target));
  if (!old) throw notFound({ group: type.group, resource: type.resource }, target.name);
  if (verb === 'get') return writeJson(res, 200, scaleOf(old, paths));

  const opts = parseWriteParams(req, params, verb === 'update' ? 'UpdateOptions' : 'PatchOptions');
  const body = await readBody(req);
  let wanted: Scale;
  if (verb === 'update') wanted = decodeObjectBody(req, body);
  else {
    const type = mediaType(req);
    if (![JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH].includes(type))
      throw unsupportedMediaType([JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH]);
    const current = scaleOf(old, paths);
    try {
      // A Scale has no lists, so a strategic merge patch is a merge patch.
      wanted = (
        type === JSON_PATCH ? applyJsonPatch(current, decodeJson(body)) : applyMergePatch(current, requireObject(decodeJson(body)))
      ) as Scale;
    } catch (err) {
      if (err instanceof JsonPatchError) throw new StatusError(422, 'Invalid', err.message);
      throw err;
    }
  }
  const replicas = isPlainObject(wanted.spec) ? wanted.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('autoscaling', 'Scale', target.name, [invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const next = cloneJson(old);
  setPath(next, paths.specReplicasPath, replicas);
  // A resourceVersion in the Scale is a precondition on the object, as on the real server.
  const rv = isPlainObject(wanted.metadata) ? wanted.metadata.resourceVersion : undefined;
  next.metadata.resourceVersion = typeof rv === 'string' && rv !== '' ? rv : old.metadata.resourceVersion;
  const stored = applyUpdate(state, { ...target, subresource: undefined }, next, old, opts);
  writeJson(res, 200, scaleOf(stored, paths));
}

/** The object as an autoscaling/v1 Scale. */
function scaleOf(obj: StoredObject, paths: ScalePaths): Record<string, unknown> {
  const meta = obj.metadata as Record<string, unknown>;
  const selector = paths.labelSelectorPath ? selectorText(getPath(obj, paths.labelSelectorPath)) : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta['name'],
      ...(meta['namespace'] ? { namespace: meta['namespace'] } : {}),
      uid: meta['uid'],
      resourceVersion: meta['resourceVersion'],
      creationTimestamp: meta['creationTimestamp'],
    },
    spec: { replicas: numberOr0(getPath(obj, paths.specReplicasPath)) },
    status: { replicas: numberOr0(getPath(obj, paths.statusReplicasPath)), ...(selector ? { selector } : {}) },
  };
}

/** A selector in its text form: a string as is, a LabelSelector or a map of labels formatted. */
function selectorText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isPlainObject(value)) return undefined;
  try {
    const selector =
      'matchLabels' in value || 'matchExpressions' in value
        ? labelSelectorFromObject(value)
        : parseLabelSelector(value as Record<string, string>);
    return selector.toString();
  } catch {
    return undefined;
  }
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter(Boolean);
}

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const key of segments(path)) cur = isPlainObject(cur) ? cur[key] : undefined;
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = segments(path);
  let cur = obj;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(cur[key])) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[keys.at(-1)!] = value;
}
