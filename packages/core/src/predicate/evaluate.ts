/**
 * Runs a source's predicates on one event. Predicates are user code: one that throws drops the event and is logged
 * (guessing "pass" could hot-loop a reconciler on an event the user meant to filter), and nothing escapes.
 */
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from '../handler/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Predicate } from './types.js';

/** The event of each type a predicate judges, keyed by type. */
export interface EventsByType<T extends KubeObjectLike = KubeObject> {
  create: CreateEvent<T>;
  update: UpdateEvent<T>;
  delete: DeleteEvent<T>;
  generic: GenericEvent<T>;
}

/** The event types a predicate judges: create, update, delete, generic. */
export type PredicateEventType = keyof EventsByType;

let sharedDefaultLogger: Logger | undefined;

/**
 * True if every predicate passes `event` (an empty list passes everything); false if one fails or throws. Throws are
 * logged to `log` (default: JSON lines on stderr).
 */
export function evaluatePredicates<T extends KubeObjectLike, K extends PredicateEventType>(
  predicates: readonly Predicate<T>[],
  type: K,
  event: EventsByType<T>[K],
  log: Logger = (sharedDefaultLogger ??= createLogger({ fields: { component: 'predicate' } })),
): boolean {
  for (const [i, p] of predicates.entries()) {
    const fn = p[type] as ((e: EventsByType<T>[K]) => boolean) | undefined;
    if (!fn) continue;
    try {
      if (!fn.call(p, event)) return false;
    } catch (err) {
      const obj = 'object' in event ? event.object : event.objectNew;
      log.error(`predicate ${i} threw on ${type} event; event dropped`, err, {
        cluster: event.clusterName,
        namespace: obj?.metadata?.namespace ?? '',
        name: obj?.metadata?.name ?? '',
      });
      return false;
    }
  }
  return true;
}
