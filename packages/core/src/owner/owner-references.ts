/**
 * Owner references, as controller-runtime's controllerutil: set a controller or a plain owner on an object before
 * writing it, so the garbage collector deletes it with its owner and `enqueueRequestForOwner` maps its events back.
 * The checks refuse what Kubernetes rejects or silently mishandles (a second controller, an owner in another
 * namespace, a namespaced owner of a cluster-scoped object). Owner references never cross clusters: for an object
 * written into another cluster, stamp its origin instead (../origin/origin.ts).
 *
 * Owners need apiVersion and kind: objects returned by the client carry them. References match by API group, kind
 * and name (not version), as upstream's.
 */
import { parseApiVersion } from '../object/gvk.js';
import type { KubeObjectLike, OwnerReference } from '../object/types.js';
import { AlreadyOwnedError, ClusterScopedDependentError, CrossNamespaceOwnerError, IncompleteOwnerError } from './errors.js';

/**
 * Options of the owner-reference helpers: whether the reference blocks the owner's foreground deletion.
 */
export interface OwnerReferenceOptions {
  /** Set `blockOwnerDeletion` (foreground deletion of the owner waits for this object). Default true for a controller, unset otherwise. */
  blockOwnerDeletion?: boolean;
}

/**
 * Makes `owner` the controller of `object` (`controller: true`, `blockOwnerDeletion: true`). Replaces an existing
 * reference to the same owner; throws AlreadyOwnedError if another object controls it.
 */
export function setControllerReference(owner: KubeObjectLike, object: KubeObjectLike, options: OwnerReferenceOptions = {}): void {
  const ref: OwnerReference = { ...referenceTo(owner), blockOwnerDeletion: options.blockOwnerDeletion ?? true, controller: true };
  const existing = getControllerOf(object);
  if (existing && !sameObject(existing, ref)) throw new AlreadyOwnedError(describe(object), describeRef(existing));
  checkScope(owner, object);
  upsert(object, ref);
}

/** Adds `owner` as a non-controlling owner of `object` (or updates the reference if there is one). */
export function setOwnerReference(owner: KubeObjectLike, object: KubeObjectLike, options: OwnerReferenceOptions = {}): void {
  const ref: OwnerReference = referenceTo(owner);
  if (options.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = options.blockOwnerDeletion;
  const existing = object.metadata?.ownerReferences?.find((r) => sameObject(r, ref));
  // Keep an existing controller flag: making a controller a plain owner needs removeOwnerReference first.
  if (existing?.controller) ref.controller = true;
  checkScope(owner, object);
  upsert(object, ref);
}

/** The controller reference of `object`, if any. */
export function getControllerOf(object: KubeObjectLike): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True if some owner controls `object`. */
export function hasControllerReference(object: KubeObjectLike): boolean {
  return getControllerOf(object) !== undefined;
}

/** True if `object` references `owner` (controller or not). */
export function hasOwnerReference(object: KubeObjectLike, owner: KubeObjectLike): boolean {
  const ref = referenceTo(owner);
  return object.metadata?.ownerReferences?.some((r) => sameObject(r, ref)) ?? false;
}

/** Removes the reference to `owner` from `object`. Returns true if there was one. */
export function removeOwnerReference(object: KubeObjectLike, owner: KubeObjectLike): boolean {
  const ref = referenceTo(owner);
  const refs = object.metadata?.ownerReferences;
  if (!refs?.some((r) => sameObject(r, ref))) return false;
  object.metadata!.ownerReferences = refs.filter((r) => !sameObject(r, ref));
  return true;
}

function referenceTo(owner: KubeObjectLike): OwnerReference {
  const label = describe(owner);
  if (!owner || typeof owner !== 'object') throw new IncompleteOwnerError('object', String(owner));
  if (!owner.apiVersion || !owner.kind) throw new IncompleteOwnerError('apiVersion/kind', label);
  const name = owner.metadata?.name;
  if (!name) throw new IncompleteOwnerError('metadata.name', label);
  const uid = owner.metadata?.uid;
  if (!uid) throw new IncompleteOwnerError('metadata.uid', label);
  return { apiVersion: owner.apiVersion, kind: owner.kind, name, uid };
}

/** What the API server and garbage collector require of the two namespaces. */
function checkScope(owner: KubeObjectLike, object: KubeObjectLike): void {
  const ownerNamespace = owner.metadata?.namespace ?? '';
  if (ownerNamespace === '') return;
  const objectNamespace = object.metadata?.namespace ?? '';
  if (objectNamespace === '') throw new ClusterScopedDependentError(describe(owner), ownerNamespace, describe(object));
  if (objectNamespace !== ownerNamespace) {
    throw new CrossNamespaceOwnerError(describe(owner), ownerNamespace, describe(object), objectNamespace);
  }
}

function upsert(object: KubeObjectLike, ref: OwnerReference): void {
  const metadata = (object.metadata ??= {});
  const refs = metadata.ownerReferences ?? [];
  const i = refs.findIndex((r) => sameObject(r, ref));
  metadata.ownerReferences = i < 0 ? [...refs, ref] : refs.map((r, j) => (j === i ? ref : r));
}

function sameObject(a: OwnerReference, b: OwnerReference): boolean {
  return parseApiVersion(a.apiVersion).group === parseApiVersion(b.apiVersion).group && a.kind === b.kind && a.name === b.name;
}

function describe(obj: KubeObjectLike): string {
  const m = obj?.metadata;
  const at = m?.namespace ? `${m.namespace}/${m.name ?? ''}` : (m?.name ?? '<unnamed>');
  return `${obj?.kind ?? 'object'} ${at}`;
}

function describeRef(ref: OwnerReference): string {
  return `${ref.kind} ${ref.name} (uid ${ref.uid})`;
}
