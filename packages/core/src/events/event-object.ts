/**
 * The events.k8s.io/v1 Event object: references to the objects it concerns, its name, and the limits the API server
 * validates (reason and action ≤ 128 characters, note ≤ 1 kB, a qualified-name reporting controller).
 */
import { qualifiedNameProblem } from '@multicluster-runtime/apimachinery';
import type { KubeObjectLike } from '../object/types.js';
import { InvalidEventError } from './errors.js';
import type { EventType } from './types.js';

export const EVENTS = { apiVersion: 'events.k8s.io/v1', kind: 'Event' } as const;

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

/** An events.k8s.io/v1 Event as this recorder writes it. */
export interface EventObject {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: EventType;
  regarding: ObjectReference;
  related?: ObjectReference;
  series?: EventSeries;
}

const NOTE_MAX_BYTES = 1024;
const FIELD_MAX = 128;

export function checkReportingController(name: string): void {
  if (typeof name !== 'string' || name === '') throw new InvalidEventError('an event recorder needs a reporting controller name');
  if (name.length > FIELD_MAX)
    throw new InvalidEventError(`reporting controller ${JSON.stringify(name)} is longer than ${FIELD_MAX} characters`);
  const reason = qualifiedNameProblem(name);
  if (reason) throw new InvalidEventError(`reporting controller ${JSON.stringify(name)} is not a qualified name: ${reason}`);
}

export function referenceTo(obj: KubeObjectLike | undefined, what: string): ObjectReference {
  if (!obj || typeof obj !== 'object') throw new InvalidEventError(`${what}: expected a Kubernetes object`);
  const name = obj.metadata?.name;
  if (!obj.apiVersion || !obj.kind || !name) {
    throw new InvalidEventError(`${what}: the object needs apiVersion, kind and metadata.name (use the object as read from its cluster)`);
  }
  const m = obj.metadata!;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

export function checkEventFields(type: string, reason: string, action: string): void {
  if (type !== 'Normal' && type !== 'Warning')
    throw new InvalidEventError(`event type must be "Normal" or "Warning", got ${JSON.stringify(type)}`);
  for (const [field, value] of [
    ['reason', reason],
    ['action', action],
  ] as const) {
    if (typeof value !== 'string' || value === '') throw new InvalidEventError(`an event needs a non-empty ${field}`);
    if (value.length > FIELD_MAX)
      throw new InvalidEventError(`event ${field} ${JSON.stringify(value.slice(0, 40))}… is longer than ${FIELD_MAX} characters`);
  }
}

/** The note cut to what the API accepts (1 kB of UTF-8), never inside a character. */
export function fitNote(note: string): string {
  const text = typeof note === 'string' ? note : String(note);
  if (Buffer.byteLength(text) <= NOTE_MAX_BYTES) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > NOTE_MAX_BYTES - 3) break;
    out += ch;
    bytes += size;
  }
  return `${out}...`;
}

let sequence = 0;

/** `<regarding name>.<hex timestamp>`, as client-go names events; a counter keeps names unique within one millisecond. */
export function eventName(regarding: ObjectReference, at: Date): string {
  sequence = (sequence + 1) % 0x100000;
  const stamp = (BigInt(at.getTime()) * 1_000_000n + BigInt(sequence)).toString(16);
  return `${regarding.name}.${stamp}`;
}

/** The namespace the Event lives in: the object's, or `default` for a cluster-scoped object (as client-go). */
export function eventNamespace(regarding: ObjectReference): string {
  return regarding.namespace || 'default';
}
