/** Predicates filter events before they reach a handler. A missing callback lets that event type through. */
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from '../handler/types.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';

/**
 * Filters events before they reach a controller's queue (controller-runtime's `predicate.Predicate`): each method
 * returns false to drop the event.
 */
export interface Predicate<T extends KubeObjectLike = KubeObject> {
  /** False drops a create event. Absent: kept. */
  create?(event: CreateEvent<T>): boolean;
  /** False drops an update event. Absent: kept. */
  update?(event: UpdateEvent<T>): boolean;
  /** False drops a delete event. Absent: kept. */
  delete?(event: DeleteEvent<T>): boolean;
  /** False drops a generic event. Absent: kept. */
  generic?(event: GenericEvent<T>): boolean;
}
