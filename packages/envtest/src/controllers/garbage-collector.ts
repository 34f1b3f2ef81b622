/**
 * Opt-in emulation of kube-controller-manager's garbage collector (envtest runs none): dependents whose owners are
 * all gone are deleted (background), `foregroundDeletion` owners wait for their dependents to go, and `orphan`
 * owners release their dependents (ownerReferences removed) before going away.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { finalizersOf, isDeleting, meta } from '../api/object-meta.js';
import type { ResourceType } from '../api/resource-type.js';
import { storageResource } from '../api/resource-type.js';
import type { StoreEvent, StoredObject } from '../storage/types.js';
import type { ApiState } from '../server/api-state.js';
import { commitUpdate } from '../server/ops/commit.js';
import { deleteObject } from '../server/ops/delete.js';

const POLL_MS = 50;

interface OwnerReference {
  uid?: string;
}

interface Located {
  type: ResourceType;
  object: StoredObject;
}

export function startGarbageCollector(state: ApiState): void {
  // Store listeners must not write synchronously: every action is scheduled.
  const unsubscribe = state.store.subscribeAll((e: StoreEvent) => {
    const cluster = e.key.cluster;
    const uid = meta(e.object)['uid'] as string | undefined;
    if (!uid) return;
    if (e.type === 'DELETED') state.schedule(() => collectDependents(state, cluster, uid), 0);
    else if (isDeleting(e.object)) {
      const finalizers = finalizersOf(e.object);
      if (finalizers.includes('orphan')) state.schedule(() => orphanDependents(state, e.key, uid), 0);
      else if (finalizers.includes('foregroundDeletion')) state.schedule(() => deleteForeground(state, e.key, uid), 0);
    }
  });
  state.onDispose(unsubscribe);
}

function ownerUids(obj: StoredObject): string[] {
  const refs = meta(obj)['ownerReferences'];
  return Array.isArray(refs) ? (refs as OwnerReference[]).flatMap((r) => (typeof r?.uid === 'string' ? [r.uid] : [])) : [];
}

/** Every object in the logical cluster, with its type (small test clusters: a scan is fine). */
function everything(state: ApiState, cluster: string): Located[] {
  const out: Located[] = [];
  for (const type of state.registry.all(cluster))
    for (const { object } of state.store.snapshot({ resource: storageResource(type), cluster }).items) out.push({ type, object });
  return out;
}

function targetOf(l: Located, cluster: string): Parameters<typeof deleteObject>[1] {
  return {
    type: l.type,
    version: l.type.versions[0]!,
    cluster,
    namespace: l.object.metadata.namespace,
    name: l.object.metadata.name,
    subresource: undefined,
  };
}

function withoutOwner(state: ApiState, l: Located, cluster: string, ownerUid: string): void {
  const key = { cluster, resource: storageResource(l.type), namespace: l.object.metadata.namespace ?? '', name: l.object.metadata.name };
  const current = state.store.get(key);
  if (!current) return;
  const next = cloneJson(current);
  const refs = (meta(next)['ownerReferences'] as OwnerReference[]).filter((r) => r?.uid !== ownerUid);
  if (refs.length > 0) meta(next)['ownerReferences'] = refs;
  else delete meta(next)['ownerReferences'];
  commitUpdate(state, key, next, current, false);
}

/** The owner is gone: delete dependents with no other live owner; otherwise just drop the dangling reference. */
function collectDependents(state: ApiState, cluster: string, ownerUid: string): void {
  const all = everything(state, cluster);
  const live = new Set(all.map((l) => meta(l.object)['uid'] as string));
  for (const l of all) {
    const owners = ownerUids(l.object);
    if (!owners.includes(ownerUid)) continue;
    if (owners.some((u) => u !== ownerUid && live.has(u))) withoutOwner(state, l, cluster, ownerUid);
    else if (!isDeleting(l.object)) deleteObject(state, targetOf(l, cluster), { dryRun: false, propagationPolicy: 'Background' });
  }
}

function dropFinalizer(state: ApiState, key: StoreEvent['key'], uid: string, finalizer: string): void {
  const current = state.store.get(key);
  if (!current || meta(current)['uid'] !== uid) return;
  const next = cloneJson(current);
  meta(next)['finalizers'] = finalizersOf(current).filter((f) => f !== finalizer);
  commitUpdate(state, key, next, current, false);
}

function orphanDependents(state: ApiState, key: StoreEvent['key'], uid: string): void {
  for (const l of everything(state, key.cluster)) if (ownerUids(l.object).includes(uid)) withoutOwner(state, l, key.cluster, uid);
  dropFinalizer(state, key, uid, 'orphan');
}

function deleteForeground(state: ApiState, key: StoreEvent['key'], uid: string): void {
  const owner = state.store.get(key);
  if (!owner || meta(owner)['uid'] !== uid || !finalizersOf(owner).includes('foregroundDeletion')) return;
  const dependents = everything(state, key.cluster).filter((l) => ownerUids(l.object).includes(uid));
  for (const l of dependents)
    if (!isDeleting(l.object)) deleteObject(state, targetOf(l, key.cluster), { dryRun: false, propagationPolicy: 'Foreground' });
  if (everything(state, key.cluster).some((l) => ownerUids(l.object).includes(uid))) {
    state.schedule(() => deleteForeground(state, key, uid), POLL_MS);
    return;
  }
  dropFinalizer(state, key, uid, 'foregroundDeletion');
}
