/** Predicates filter events before they reach a handler. A missing callback lets that event type through. */
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from '../handler/types.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';

export interface Predicate<T extends KubeObjectLike = KubeObject> {
  create?(event: CreateEvent<T>): boolean;
  update?(event: UpdateEvent<T>): boolean;
  delete?(event: DeleteEvent<T>): boolean;
  generic?(event: GenericEvent<T>): boolean;
}
