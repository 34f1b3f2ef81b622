/**
 * Turning objects and map-function results into Requests, with the checks every handler needs: an event for an
 * object without a name cannot be reconciled and is reported instead of enqueued as a broken request.
 */
import { createLogger, type Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { KubeObjectLike } from '../object/types.js';
import { requestKey } from '../reconcile/request.js';
import type { Request } from '../reconcile/types.js';

let sharedDefaultLogger: Logger | undefined;

/** Where handlers report what they could not enqueue, unless given a logger. */
export function defaultHandlerLogger(): Logger {
  return (sharedDefaultLogger ??= createLogger({ fields: { component: 'handler' } }));
}

/** Log fields naming an event's object, never its contents. */
export function objectFields(clusterName: ClusterName, obj: KubeObjectLike | undefined): Record<string, unknown> {
  return { cluster: clusterName, namespace: obj?.metadata?.namespace ?? '', name: obj?.metadata?.name ?? '' };
}

/** The request for `obj` itself, or undefined if it has no name. */
export function requestForObject(clusterName: ClusterName, obj: KubeObjectLike | undefined): Request | undefined {
  const name = obj?.metadata?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const namespace = obj!.metadata!.namespace;
  return { clusterName, namespace: typeof namespace === 'string' ? namespace : '', name };
}

/** Adds each request once, in order; the queue deduplicates too, but a batch should not count twice in metrics. */
export function addUnique(requests: Iterable<Request>, add: (req: Request) => void): void {
  const seen = new Set<string>();
  for (const req of requests) {
    const key = requestKey(req);
    if (seen.has(key)) continue;
    seen.add(key);
    add(req);
  }
}
