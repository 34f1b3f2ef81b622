/**
 * Writes that go through admission webhooks. The store's write paths are synchronous; webhooks are HTTP calls. So
 * each write is computed without storing (a dry run of the normal path: same checks, same defaults, same errors),
 * shown to the webhooks, and then exactly what they approved is stored, if the object did not change meanwhile
 * (otherwise the whole write is tried again, as kube-apiserver's GuaranteedUpdate does). Mutating webhooks see a
 * create before the server's own defaults and checks, and an update or patch after it was applied, as upstream.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { isDeepStrictEqual } from 'node:util';
import { alreadyExists, conflict } from '../../api/status-error.js';
import type { UserInfo } from '../../auth/authenticator.js';
import type { StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';
import { KCP_CLUSTER_ANNOTATION } from '../../cluster-path.js';
import type { ListOptions } from '../list-options.js';
import { objectKey, present, type CollectionTarget, type ObjectTarget } from '../object-target.js';
import { commitUpdate } from '../ops/commit.js';
import { createObject } from '../ops/create.js';
import { deleteCollection } from '../ops/delete-collection.js';
import type { DeleteOptions, DeleteResult } from '../ops/delete.js';
import { applyUpdate, type WriteResult } from '../ops/update.js';
import type { WriteOptions } from '../ops/write-options.js';
import { hasWebhooks, mutate, validate, type AdmissionRequestInfo } from './dispatcher.js';
import type { AdmissionAttributes, AdmissionOperation } from './match.js';

const ATTEMPTS = 8;

/** Who writes, and the request's signal (aborted when the client goes away or the server stops). */
export interface Writer {
  readonly user: UserInfo;
  readonly signal: AbortSignal;
}

type Target = CollectionTarget & { cluster: string };

function annotationOf(state: ApiState, cluster: string): string | undefined {
  return state.options.logicalClusters ? cluster : undefined;
}

/** The object as webhooks see it: apiVersion, kind and (kcp) the logical-cluster annotation. */
function shown(state: ApiState, t: Target, obj: StoredObject | undefined): Record<string, unknown> | undefined {
  return obj && present(obj, t.type, t.version, annotationOf(state, t.cluster));
}

/** A webhook's result back as a stored object (without the annotation `shown` added). */
function stored(state: ApiState, original: StoredObject, obj: Record<string, unknown>): StoredObject {
  const out = cloneJson(obj) as StoredObject;
  if (!state.options.logicalClusters) return out;
  const had = (original.metadata['annotations'] as Record<string, string> | undefined)?.[KCP_CLUSTER_ANNOTATION];
  const annotations = out.metadata['annotations'] as Record<string, string> | undefined;
  if (had === undefined && annotations) {
    delete annotations[KCP_CLUSTER_ANNOTATION];
    if (Object.keys(annotations).length === 0 && original.metadata['annotations'] === undefined) delete out.metadata['annotations'];
  }
  return out;
}

function attributes(
  state: ApiState,
  t: Target,
  op: AdmissionOperation,
  name: string,
  subresource: string | undefined,
  object?: StoredObject,
  old?: StoredObject,
): AdmissionAttributes {
  const isNamespace = t.type.group === '' && t.type.resource === 'namespaces';
  return {
    operation: op,
    group: t.type.group,
    version: t.version,
    resource: t.type.resource,
    subresource: subresource ?? '',
    kind: t.type.kind,
    namespace: isNamespace ? name : (t.namespace ?? ''),
    name,
    object: shown(state, t, object),
    oldObject: shown(state, t, old),
  };
}

function info(
  t: Target,
  w: Writer,
  kind: string,
  opts: { dryRun: boolean; fieldManager?: string | undefined; warnings?: string[] | undefined },
): AdmissionRequestInfo {
  return {
    cluster: t.cluster,
    user: w.user,
    dryRun: opts.dryRun,
    options: {
      apiVersion: 'meta.k8s.io/v1',
      kind,
      ...(opts.dryRun ? { dryRun: ['All'] } : {}),
      ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}),
    },
    warnings: opts.warnings,
  };
}

/** POST: mutate the object as sent, then check and default it, validate, store. */
export async function admittedCreate(state: ApiState, t: Target, w: Writer, obj: StoredObject, opts: WriteOptions): Promise<StoredObject> {
  if (!hasWebhooks(state, t.cluster)) return createObject(state, t, obj, opts);
  const i = info(t, w, 'CreateOptions', opts);
  const name = obj.metadata.name ?? '';
  const mutatedShown = await mutate(state, attributes(state, t, 'CREATE', name, undefined, obj), i, w.signal);
  const mutated = stored(state, obj, mutatedShown!);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const candidate = createObject(state, t, mutated, { ...opts, dryRun: true });
    await validate(state, attributes(state, t, 'CREATE', candidate.metadata.name, undefined, candidate), i, w.signal);
    if (opts.dryRun) return candidate;
    const key = objectKey({ ...t, name: candidate.metadata.name });
    if (!state.store.get(key)) return state.store.create(key, candidate);
    if (name !== '') throw alreadyExists({ group: t.type.group, resource: t.type.resource }, name);
  }
  throw alreadyExists({ group: t.type.group, resource: t.type.resource }, name);
}

/**
 * PUT and PATCH: `write` is the normal path (updateObject or patchObject), run here only as a dry run to learn the
 * object the write produces. Create-on-update and create-on-apply go through as CREATE.
 */
export async function admittedUpdate<O extends WriteOptions>(
  state: ApiState,
  t: ObjectTarget,
  w: Writer,
  opts: O,
  write: (opts: O) => WriteResult,
  optionsKind: 'UpdateOptions' | 'PatchOptions',
): Promise<WriteResult> {
  if (!hasWebhooks(state, t.cluster)) return write(opts);
  const key = objectKey(t);
  const dry: O = { ...opts, dryRun: true };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const old = state.store.get(key);
    const first = write(dry);
    if (first.created) {
      const i = info(t, w, 'CreateOptions', opts);
      const created = stored(
        state,
        first.object,
        (await mutate(state, attributes(state, t, 'CREATE', t.name, undefined, first.object), i, w.signal))!,
      );
      const candidate = isDeepStrictEqual(created, first.object) ? first.object : createObject(state, t, created, dry);
      await validate(state, attributes(state, t, 'CREATE', t.name, undefined, candidate), i, w.signal);
      if (opts.dryRun) return { object: candidate, created: true };
      if (state.store.has(key)) continue;
      return { object: state.store.create(key, candidate), created: true };
    }
    const i = info(t, w, optionsKind, opts);
    const mutatedShown = await mutate(state, attributes(state, t, 'UPDATE', t.name, t.subresource, first.object, old), i, w.signal);
    const mutated = stored(state, first.object, mutatedShown!);
    const candidate = isDeepStrictEqual(mutated, first.object) ? first.object : applyUpdate(state, t, mutated, old!, dry);
    await validate(state, attributes(state, t, 'UPDATE', t.name, t.subresource, candidate, old), i, w.signal);
    if (opts.dryRun) return { object: candidate, created: false };
    const current = state.store.get(key);
    if (!current || current.metadata.resourceVersion !== old!.metadata.resourceVersion) continue;
    return { object: commitUpdate(state, key, candidate, current, false), created: false };
  }
  throw conflict({ group: t.type.group, resource: t.type.resource }, t.name, 'the object kept changing while admission webhooks ran');
}

/** DELETE of one object: webhooks see the stored object as oldObject. */
export async function admittedDelete(
  state: ApiState,
  t: ObjectTarget,
  w: Writer,
  opts: DeleteOptions,
  write: (opts: DeleteOptions) => DeleteResult,
): Promise<DeleteResult> {
  if (!hasWebhooks(state, t.cluster)) return write(opts);
  const key = objectKey(t);
  const i = info(t, w, 'DeleteOptions', { dryRun: opts.dryRun, warnings: undefined });
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const old = state.store.get(key);
    if (!old) return write(opts); // the normal path answers 404
    write({ ...opts, dryRun: true }); // preconditions and options first, as upstream
    const a = attributes(state, t, 'DELETE', t.name, t.subresource, undefined, old);
    await mutate(state, a, i, w.signal);
    await validate(state, a, i, w.signal);
    if (opts.dryRun) return write(opts);
    if (state.store.get(key)?.metadata.resourceVersion !== old.metadata.resourceVersion) continue;
    return write(opts);
  }
  throw conflict({ group: t.type.group, resource: t.type.resource }, t.name, 'the object kept changing while admission webhooks ran');
}

/** DELETE of a collection: every object is admitted before any is deleted. */
export async function admittedDeleteCollection(
  state: ApiState,
  t: Target,
  w: Writer,
  list: ListOptions,
  opts: DeleteOptions,
): Promise<StoredObject[]> {
  if (!hasWebhooks(state, t.cluster)) return deleteCollection(state, t, list, opts);
  const i = info(t, w, 'DeleteOptions', { dryRun: opts.dryRun, warnings: undefined });
  for (const old of deleteCollection(state, t, list, { ...opts, dryRun: true })) {
    const a = attributes(
      state,
      { ...t, namespace: old.metadata.namespace || undefined },
      'DELETE',
      old.metadata.name,
      undefined,
      undefined,
      old,
    );
    await mutate(state, a, i, w.signal);
    await validate(state, a, i, w.signal);
  }
  return deleteCollection(state, t, list, opts);
}
