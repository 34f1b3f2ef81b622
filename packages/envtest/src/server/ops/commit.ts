/**
 * Storing the result of an update or patch, including the one rule that turns an update into a delete: an object
 * being deleted whose last finalizer is removed goes away (store.go ShouldDeleteDuringUpdate).
 */
import { NAMESPACE_RESOURCE } from '../../api/builtin-resources.js';
import { finalizersOf, isDeleting } from '../../api/object-meta.js';
import { namespaceSpecFinalizers } from '../../api/strategies/namespace.js';
import type { ObjectKey, StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';

export function isReadyToRemove(key: ObjectKey, obj: StoredObject): boolean {
  if (!isDeleting(obj) || finalizersOf(obj).length > 0) return false;
  return key.resource !== NAMESPACE_RESOURCE || namespaceSpecFinalizers(obj).length === 0;
}

export function commitUpdate(state: ApiState, key: ObjectKey, next: StoredObject, old: StoredObject, dryRun: boolean): StoredObject {
  if (dryRun) {
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    return next;
  }
  if (isReadyToRemove(key, next)) {
    state.store.delete(key, next);
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    return next;
  }
  return state.store.update(key, next);
}
