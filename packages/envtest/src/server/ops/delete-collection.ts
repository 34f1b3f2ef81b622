/** DELETE on a collection: every object matching the selectors goes through the normal delete path. */
import { storageResource } from '../../api/resource-type.js';
import { StatusError } from '../../api/status-error.js';
import type { StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';
import type { ListOptions } from '../list-options.js';
import { matchesSelectors } from '../list-options.js';
import type { CollectionTarget } from '../object-target.js';
import type { DeleteOptions } from './delete.js';
import { deleteObject } from './delete.js';

export function deleteCollection(
  state: ApiState,
  target: CollectionTarget & { cluster: string },
  list: ListOptions,
  opts: DeleteOptions,
): StoredObject[] {
  const scope = { resource: storageResource(target.type), cluster: target.cluster, namespace: target.namespace };
  const out: StoredObject[] = [];
  for (const item of state.store.snapshot(scope).items) {
    if (!matchesSelectors(list, item.object)) continue;
    const m = item.object.metadata;
    try {
      out.push(deleteObject(state, { ...target, namespace: m.namespace, name: m.name, subresource: undefined }, opts).object);
    } catch (err) {
      // An object deleted concurrently is simply not in the result.
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
  return out;
}
