/**
 * Object model shared by every part of the runtime: plain JSON Kubernetes objects, exactly as the API server
 * sends them (no class instances, no Date objects), so list and watch results have one shape.
 */

/** An owner reference, as stored in `metadata.ownerReferences`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The metadata every Kubernetes object carries. Timestamps are RFC 3339 strings. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** Any Kubernetes object. `apiVersion` and `kind` may be absent on items of typed lists. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Names a kind of object the way users write it: `{ apiVersion: 'apps/v1', kind: 'Deployment' }`. */
export interface ObjectKind {
  apiVersion: string;
  kind: string;
}

/** A group, version and kind, with `group` "" for the core group. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Identifies one object inside a cluster. `namespace` is "" or absent for cluster-scoped objects. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}
