/**
 * Event recording contracts: a recorder per reporting controller, as client-go's tools/events `EventRecorder` and
 * controller-runtime's `GetEventRecorderFor`. Recording never blocks and never fails a reconcile because of the API:
 * events are queued and written in the background, repeats are aggregated, and what cannot be written is dropped and
 * counted.
 */
import type { KubeObjectLike } from '../object/types.js';

/**
 * The `type` of a Kubernetes Event.
 */
export type EventType = 'Normal' | 'Warning';

/**
 * Optional details of one Event: the action taken, and a related second object.
 */
export interface RecordOptions {
  /** What was done or failed, e.g. `Reconcile`, `Provision` (events.k8s.io's `action`). Default: the reason. */
  action?: string;
  /** A second object the event concerns, e.g. the object created in another cluster for `regarding`. */
  related?: KubeObjectLike;
}

/**
 * Records Kubernetes Events about objects (controller-runtime's `record.EventRecorder`), deduplicated and rate
 * limited, written in the background to the cluster the object lives in.
 */
export interface EventRecorder {
  /**
   * Records an event about `regarding` (an object as read from its cluster: it needs apiVersion, kind and name).
   * `reason` is a short UpperCamelCase word (`SyncFailed`); `note` is for humans (cut to 1 kB). Returns at once.
   * Repeats of one event (same regarding, related, reason and action) within minutes become one Event with a series.
   */
  event(regarding: KubeObjectLike, type: EventType, reason: string, note: string, options?: RecordOptions): void;
}
