/**
 * Delete: preconditions, garbage-collection finalizers from the propagation policy, and the two outcomes: removed
 * now, or marked with deletionTimestamp while finalizers remain (store.go Delete / markAsDeleting).
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { CRD_RESOURCE, NAMESPACE_RESOURCE } from '../../api/builtin-resources.js';
import { finalizersOf, isDeleting, meta, nowTimestamp } from '../../api/object-meta.js';
import { CRD_CLEANUP_FINALIZER } from '../../api/strategies/crd.js';
import { namespaceSpecFinalizers } from '../../api/strategies/namespace.js';
import { badRequest, conflict, notFound } from '../../api/status-error.js';
import type { StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';
import type { ObjectTarget } from '../object-target.js';
import { objectKey } from '../object-target.js';

export interface DeleteOptions {
  readonly dryRun: boolean;
  readonly propagationPolicy?: string;
  readonly orphanDependents?: boolean;
  readonly preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  /** True when the object is gone; false when it is only marked for deletion. */
  readonly removed: boolean;
  readonly object: StoredObject;
}

const POLICIES = ['Foreground', 'Background', 'Orphan'];

export function deleteObject(state: ApiState, target: ObjectTarget, opts: DeleteOptions): DeleteResult {
  const { type } = target;
  const gr = { group: type.group, resource: type.resource };
  const key = objectKey(target);
  const old = state.store.get(key);
  if (!old) throw notFound(gr, target.name);
  const m = meta(old);
  const pre = opts.preconditions;
  if (pre?.uid !== undefined && pre.uid !== m['uid'])
    throw conflict(gr, target.name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(m['uid'])}`);
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== m['resourceVersion'])
    throw conflict(
      gr,
      target.name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(m['resourceVersion'])}`,
    );
  if (opts.propagationPolicy !== undefined && !POLICIES.includes(opts.propagationPolicy))
    throw badRequest(
      `propagationPolicy: Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`,
    );

  const finalizers = [...finalizersOf(old)];
  const addFinalizer = (f: string): void => {
    if (!finalizers.includes(f)) finalizers.push(f);
  };
  if (opts.propagationPolicy === 'Foreground') addFinalizer('foregroundDeletion');
  if (opts.propagationPolicy === 'Orphan' || (opts.propagationPolicy === undefined && opts.orphanDependents === true))
    addFinalizer('orphan');
  if (key.resource === CRD_RESOURCE) addFinalizer(CRD_CLEANUP_FINALIZER);
  const pending = finalizers.length > 0 || (key.resource === NAMESPACE_RESOURCE && namespaceSpecFinalizers(old).length > 0);

  if (!pending) {
    if (opts.dryRun) return { removed: true, object: old };
    return { removed: true, object: state.store.delete(key)! };
  }
  const next = cloneJson(old);
  const nm = meta(next);
  if (finalizers.length > 0) nm['finalizers'] = finalizers;
  if (!isDeleting(old)) {
    nm['deletionTimestamp'] = nowTimestamp();
    nm['deletionGracePeriodSeconds'] = 0;
    if (typeof nm['generation'] === 'number' && nm['generation'] > 0) nm['generation'] += 1;
    if (key.resource === NAMESPACE_RESOURCE) next['status'] = { ...(next['status'] ?? {}), phase: 'Terminating' };
    if (key.resource === CRD_RESOURCE) markCrdTerminating(next);
  }
  if (opts.dryRun) return { removed: false, object: next };
  return { removed: false, object: state.store.update(key, next) };
}

function markCrdTerminating(crd: StoredObject): void {
  const status = (crd['status'] as { conditions?: unknown[] } | undefined) ?? {};
  const conditions = (status.conditions ?? []).filter((c) => (c as { type?: string }).type !== 'Terminating');
  conditions.push({
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: nowTimestamp(),
    reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  });
  crd['status'] = { ...status, conditions };
}
