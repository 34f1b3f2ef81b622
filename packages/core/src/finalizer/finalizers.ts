/**
 * Finalizer helpers on an object in memory, as controller-runtime's controllerutil: they edit `metadata.finalizers`
 * and say whether anything changed, so the caller writes only when needed. To run cleanup and write the change, see
 * the registry in ./registry.ts.
 */
import { qualifiedNameProblem } from '@multicluster-runtime/apimachinery';
import type { KubeObjectLike } from '../object/types.js';
import { InvalidFinalizerError } from './errors.js';

/** True if `obj` carries `finalizer`. */
export function containsFinalizer(obj: KubeObjectLike, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** Adds `finalizer` unless present. Returns true if it was added. */
export function addFinalizer(obj: KubeObjectLike, finalizer: string): boolean {
  checkFinalizerName(finalizer);
  if (containsFinalizer(obj, finalizer)) return false;
  const metadata = (obj.metadata ??= {});
  metadata.finalizers = [...(metadata.finalizers ?? []), finalizer];
  return true;
}

/** Removes every occurrence of `finalizer`. Returns true if one was removed. */
export function removeFinalizer(obj: KubeObjectLike, finalizer: string): boolean {
  const finalizers = obj.metadata?.finalizers;
  if (!finalizers?.includes(finalizer)) return false;
  obj.metadata!.finalizers = finalizers.filter((f) => f !== finalizer);
  return true;
}

/** Throws InvalidFinalizerError unless `finalizer` is a qualified name the API server accepts (`example.com/cleanup`). */
export function checkFinalizerName(finalizer: string): void {
  if (typeof finalizer !== 'string') throw new InvalidFinalizerError(String(finalizer), 'a finalizer is a string');
  const reason = qualifiedNameProblem(finalizer);
  if (reason) throw new InvalidFinalizerError(finalizer, reason);
}
