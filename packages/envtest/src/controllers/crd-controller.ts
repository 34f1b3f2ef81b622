/**
 * What apiextensions-apiserver's controllers do for CRDs: accept names and mark a new CRD Established after a delay
 * (a MODIFIED event), serve its resource from then on, and on deletion remove every custom resource, stop serving,
 * end the resource's watches and drop the cleanup finalizer so the CRD goes away.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { CRD_RESOURCE } from '../api/builtin-resources.js';
import { finalizersOf, isDeleting, meta, nowTimestamp } from '../api/object-meta.js';
import type { ResourceType } from '../api/resource-type.js';
import { storageResource } from '../api/resource-type.js';
import { CRD_CLEANUP_FINALIZER, crdConditions, crdSpec, isEstablished, resourceTypeForCrd } from '../api/strategies/crd.js';
import type { StoreEvent } from '../storage/types.js';
import type { ApiState } from '../server/api-state.js';
import { commitUpdate } from '../server/ops/commit.js';
import { deleteObject } from '../server/ops/delete.js';

const CLEANUP_POLL_MS = 50;

export function startCrdController(state: ApiState): void {
  // Store listeners must not write synchronously (it would reorder events for other listeners): schedule instead.
  const unsubscribe = state.store.subscribe(CRD_RESOURCE, (e: StoreEvent) => {
    const { cluster, name } = e.key;
    if (e.type === 'DELETED') return;
    const crd = e.object;
    if (isDeleting(crd)) {
      if (finalizersOf(crd).includes(CRD_CLEANUP_FINALIZER)) state.schedule(() => cleanup(state, cluster, name), 0);
      return;
    }
    if (!isEstablished(crd)) state.schedule(() => establish(state, cluster, name), state.options.crdEstablishDelayMs);
    else {
      const type = resourceTypeForCrd(crd);
      if (type) state.registry.set(cluster, type);
    }
  });
  state.onDispose(unsubscribe);
}

function crdKey(cluster: string, name: string): { cluster: string; resource: string; namespace: string; name: string } {
  return { cluster, resource: CRD_RESOURCE, namespace: '', name };
}

function establish(state: ApiState, cluster: string, name: string): void {
  const key = crdKey(cluster, name);
  const crd = state.store.get(key);
  if (!crd || isDeleting(crd) || isEstablished(crd)) return;
  const names = crdSpec(crd).names ?? {};
  const now = nowTimestamp();
  const conditions = crdConditions(crd).filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');
  conditions.push(
    { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
    {
      type: 'Established',
      status: 'True',
      lastTransitionTime: now,
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    },
  );
  const next = cloneJson(crd);
  next['status'] = { ...(crd['status'] ?? {}), acceptedNames: { ...names }, conditions };
  state.store.update(key, next);
}

function cleanup(state: ApiState, cluster: string, name: string): void {
  const key = crdKey(cluster, name);
  const crd = state.store.get(key);
  if (!crd || !isDeleting(crd) || !finalizersOf(crd).includes(CRD_CLEANUP_FINALIZER)) return;
  const type = resourceTypeForCrd(crd);
  if (type && !deleteAllInstances(state, cluster, type)) {
    state.schedule(() => cleanup(state, cluster, name), CLEANUP_POLL_MS);
    return;
  }
  if (type) {
    const resource = storageResource(type);
    state.registry.remove(cluster, resource);
    for (const w of [...state.watches])
      if (w.scope.resource === resource && (w.scope.cluster === undefined || w.scope.cluster === cluster)) w.end();
  }
  const next = cloneJson(crd);
  meta(next)['finalizers'] = finalizersOf(crd).filter((f) => f !== CRD_CLEANUP_FINALIZER);
  commitUpdate(state, key, next, crd, false);
}

/** Deletes every instance (respecting their finalizers); true once none is left. */
function deleteAllInstances(state: ApiState, cluster: string, type: ResourceType): boolean {
  const items = state.store.snapshot({ resource: storageResource(type), cluster }).items;
  for (const { object } of items) {
    if (isDeleting(object)) continue;
    deleteObject(
      state,
      {
        type,
        version: type.versions[0]!,
        cluster,
        namespace: object.metadata.namespace,
        name: object.metadata.name,
        subresource: undefined,
      },
      { dryRun: false },
    );
  }
  return state.store.snapshot({ resource: storageResource(type), cluster }).items.length === 0;
}
