/** What a kind's rules may read while one of its objects is written: the other objects of its resource in the cluster. */
import type { StrategyContext } from '../../api/resource-type.js';
import { storageResource } from '../../api/resource-type.js';
import type { ApiState } from '../api-state.js';
import type { CollectionTarget } from '../object-target.js';

export function strategyContext(state: ApiState, target: CollectionTarget & { cluster: string }): StrategyContext {
  return {
    siblings: () => state.store.snapshot({ resource: storageResource(target.type), cluster: target.cluster }).items.map((i) => i.object),
  };
}
