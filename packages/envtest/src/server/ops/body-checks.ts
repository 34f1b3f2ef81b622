/** Checks shared by create, update and apply on the object a client sent. */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { groupVersion } from '../../api/resource-type.js';
import { badRequest } from '../../api/status-error.js';
import { valueText } from '../../api/value-text.js';
import type { StoredObject } from '../../storage/types.js';
import type { CollectionTarget } from '../object-target.js';

/**
 * A deep copy of the body as a stored object: apiVersion and kind may be omitted for built-ins (taken from the URL)
 * but must match when present; metadata must be an object.
 */
export function objectFromBody(target: CollectionTarget, body: Record<string, unknown>): StoredObject {
  const gv = groupVersion(target.type.group, target.version);
  // Custom resources are decoded as unstructured, which cannot default the type from the URL as built-ins do.
  if (target.type.custom && (typeof body['kind'] !== 'string' || body['kind'] === '')) throw missingKind(target, body);
  const apiVersion = target.type.custom ? (body['apiVersion'] ?? '') : body['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== gv)
    throw badRequest(`the API version in the data (${valueText(apiVersion)}) does not match the expected API version (${gv})`);
  if (body['kind'] !== undefined && body['kind'] !== target.type.kind)
    throw badRequest(`the kind in the data (${valueText(body['kind'])}) does not match the expected kind (${target.type.kind})`);
  const metadata = body['metadata'] ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw badRequest('metadata must be an object');
  const obj = cloneJson({ ...body, metadata }) as StoredObject;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: gv, kind: target.type.kind, ...rest };
}

/** What the unstructured decoder answers for a custom resource body without `kind`. */
function missingKind(target: CollectionTarget, body: Record<string, unknown>): Error {
  const text = JSON.stringify(body);
  const short = text.length > 30 ? `${text.slice(0, 30)} ...` : text;
  return badRequest(
    `the object provided is unrecognized (must be of type ${target.type.kind}): Object 'Kind' is missing in '${text}' (${short})`,
  );
}

export function checkNamespace(obj: StoredObject, namespace: string | undefined): void {
  const ns = obj.metadata.namespace;
  if (namespace !== undefined && ns !== undefined && ns !== '' && ns !== namespace)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

export function checkName(obj: StoredObject, name: string): void {
  const n = obj.metadata.name;
  if (n !== undefined && n !== '' && n !== name)
    throw badRequest(`the name of the object (${String(n)}) does not match the name on the URL (${name})`);
  obj.metadata.name = name;
}
