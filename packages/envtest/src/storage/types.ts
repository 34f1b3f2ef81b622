/** Shapes shared by the store and its users. */

/** A JSON Kubernetes object as stored: plain data, never mutated after it is stored. */
export interface StoredObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** Where an object lives. `cluster` is the logical cluster ("" outside kcp mode); `resource` is group-qualified. */
export interface ObjectKey {
  readonly cluster: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** Which objects a list or watch covers. `cluster: undefined` means every logical cluster (kcp's wildcard). */
export interface Scope {
  readonly resource: string;
  readonly cluster?: string;
  readonly namespace?: string;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One stored write. `object` is the new state (for DELETED: the last state carrying the delete's revision). */
export interface StoreEvent {
  readonly rv: number;
  readonly type: EventType;
  readonly key: ObjectKey;
  /** Sort key of the object inside its resource (cluster, namespace, name), as used by continue tokens. */
  readonly sortKey: string;
  readonly object: StoredObject;
  readonly prev?: StoredObject;
}

export type StoreListener = (event: StoreEvent) => void;
