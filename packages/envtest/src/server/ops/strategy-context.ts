/** What a kind's rules may read while one of its objects is written: the objects of its cluster, by resource. */
import type { StrategyContext } from '../../api/resource-type.js';
import { storageResource } from '../../api/resource-type.js';
import type { ApiState } from '../api-state.js';
import type { CollectionTarget } from '../object-target.js';

export function strategyContext(state: ApiState, target: CollectionTarget & { cluster: string }): StrategyContext {
  const objectsOf = (resource: string) => state.store.snapshot({ resource, cluster: target.cluster }).items.map((i) => i.object);
  return { siblings: () => objectsOf(storageResource(target.type)), objectsOf };
}
