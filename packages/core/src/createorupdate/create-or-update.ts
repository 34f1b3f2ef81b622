/**
 * createOrUpdate and createOrPatch, as controller-runtime's controllerutil: read the object named by `obj`, let
 * `mutate` set the desired state on what is stored (or on `obj` when nothing is), and write only if something
 * changed. `obj` ends up holding the stored object, as the Go object does, so the caller can go on with it.
 *
 * Put every desired field in `mutate`: fields set on `obj` before the call are replaced by the stored object's when it
 * exists. With a cache-backed client the read may be stale: a create then meets AlreadyExists, or an update a
 * Conflict, and the reconcile's retry converges, as in controller-runtime.
 */
import { ignoreNotFound } from '../client/errors.js';
import { createMergePatch } from '../client/merge-patch.js';
import type { Client, WriteOptions } from '../client/types.js';
import { objectKindOf } from '../object/gvk.js';
import { replaceContents } from '../object/in-place.js';
import type { JsonObject } from '../object/json.js';
import type { KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import { MutateChangedKeyError, ObjectKeyMissingError } from './errors.js';

/**
 * What a call did, with controller-runtime's values: `updatedStatus` is spec and status patched, `updatedStatusOnly`
 * only the status subresource.
 */
export type OperationResult = 'unchanged' | 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly';

/** Sets the desired state on the object it is given (the stored one, or `obj` if none is stored). */
export type MutateFunc<T> = (obj: T) => void | Promise<void>;

/** What createOrUpdate and createOrPatch need of a client: a cluster's `client`, or any Client. */
export type ToolkitClient = Pick<Client, 'get' | 'create' | 'update' | 'patch'>;

/**
 * Creates the object if it does not exist, else updates it if `mutate` changed it (a full update, guarded by the
 * resourceVersion read). Returns what it did; `obj` holds the stored object afterwards.
 */
export async function createOrUpdate<T extends KubeObjectLike>(
  client: ToolkitClient,
  obj: T,
  mutate: MutateFunc<T>,
  options: WriteOptions = {},
): Promise<'created' | 'updated' | 'unchanged'> {
  const { kind, key } = identity(obj);
  const current = await client.get<T>(kind, key, { signal: options.signal }).catch(ignoreNotFound);
  if (!current) {
    await mutateKeeping(obj, key, mutate);
    replaceContents(obj, await client.create(obj, options));
    return 'created';
  }
  replaceContents(obj, current);
  const before = structuredClone(current);
  await mutateKeeping(obj, key, mutate);
  if (Object.keys(createMergePatch(before, obj)).length === 0) return 'unchanged';
  replaceContents(obj, await client.update(obj, options));
  return 'updated';
}

/**
 * Like createOrUpdate, but writes merge patches of what `mutate` changed: one for the object without `status`, and one
 * for the status subresource if `status` changed. Fields `mutate` did not touch are never sent, so another writer's
 * changes to them survive.
 */
export async function createOrPatch<T extends KubeObjectLike>(
  client: ToolkitClient,
  obj: T,
  mutate: MutateFunc<T>,
  options: WriteOptions = {},
): Promise<OperationResult> {
  const { kind, key } = identity(obj);
  const current = await client.get<T>(kind, key, { signal: options.signal }).catch(ignoreNotFound);
  if (!current) {
    await mutateKeeping(obj, key, mutate);
    replaceContents(obj, await client.create(obj, options));
    return 'created';
  }
  replaceContents(obj, current);
  const before = structuredClone(current) as T & JsonObject;
  await mutateKeeping(obj, key, mutate);
  const after = obj as T & JsonObject;
  const { status: statusBefore, ...restBefore } = before;
  const { status: statusAfter, ...restAfter } = after;
  const mainPatch = createMergePatch(restBefore, restAfter);
  const statusPatch = createMergePatch({ status: statusBefore }, { status: statusAfter });
  const patchMain = Object.keys(mainPatch).length > 0;
  const patchStatus = Object.keys(statusPatch).length > 0;
  if (!patchMain && !patchStatus) return 'unchanged';

  if (patchMain) replaceContents(obj, await client.patch<T>(kind, key, { type: 'merge', body: mainPatch }, options));
  if (patchStatus) {
    replaceContents(obj, await client.patch<T>(kind, key, { type: 'merge', body: statusPatch }, { ...options, subresource: 'status' }));
  }
  return patchMain && patchStatus ? 'updatedStatus' : patchMain ? 'updated' : 'updatedStatusOnly';
}

function identity(obj: KubeObjectLike): { kind: ObjectKind; key: ObjectKey } {
  const name = obj?.metadata?.name;
  if (!name) throw new ObjectKeyMissingError('metadata.name');
  let kind: ObjectKind;
  try {
    kind = objectKindOf(obj);
  } catch {
    throw new ObjectKeyMissingError('apiVersion and kind');
  }
  const namespace = obj.metadata?.namespace;
  return { kind, key: namespace ? { namespace, name } : { name } };
}

async function mutateKeeping<T extends KubeObjectLike>(obj: T, key: ObjectKey, mutate: MutateFunc<T>): Promise<void> {
  await mutate(obj);
  if (obj.metadata?.name !== key.name || (obj.metadata?.namespace || undefined) !== (key.namespace || undefined)) {
    throw new MutateChangedKeyError(key);
  }
}
