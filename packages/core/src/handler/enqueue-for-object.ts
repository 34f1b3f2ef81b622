/**
 * The handler behind `for(kind)`: every event enqueues a Request for the object itself, in the cluster the event
 * came from.
 */
import type { Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import { defaultHandlerLogger, objectFields, requestForObject } from './object-request.js';
import type { EventHandler, RequestQueue } from './types.js';

/** Options of enqueueRequestForObject: the logger. */
export interface EnqueueForObjectOptions {
  /** Where events for objects without a name are reported. Default: JSON lines on stderr. */
  logger?: Logger;
}

/** Enqueues `{clusterName, namespace, name}` of the event's object (the new object on updates). */
export function enqueueRequestForObject<T extends KubeObjectLike = KubeObject>(options: EnqueueForObjectOptions = {}): EventHandler<T> {
  const enqueue = (type: string, clusterName: ClusterName, obj: T | undefined, queue: RequestQueue): void => {
    const req = requestForObject(clusterName, obj);
    if (req) queue.add(req);
    else
      (options.logger ?? defaultHandlerLogger()).error(
        `${type} event for an object without a name; nothing enqueued`,
        undefined,
        objectFields(clusterName, obj),
      );
  };
  return {
    create: (e, q) => enqueue('create', e.clusterName, e.object, q),
    // Old and new name the same object; the new one is authoritative.
    update: (e, q) => enqueue('update', e.clusterName, e.objectNew ?? e.objectOld, q),
    delete: (e, q) => enqueue('delete', e.clusterName, e.object, q),
    generic: (e, q) => enqueue('generic', e.clusterName, e.object, q),
  };
}
