/**
 * Namespace rules (registry/core/namespace strategy): phase Active, the `kubernetes` spec finalizer and the
 * `kubernetes.io/metadata.name` label on create; spec.finalizers change only through `/finalize`.
 */
import type { StoredObject } from '../../storage/types.js';
import type { ResourceStrategy } from '../resource-type.js';

export const NAMESPACE_FINALIZER = 'kubernetes';
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function setNameLabel(obj: StoredObject): void {
  obj.metadata['labels'] = {
    ...(obj.metadata['labels'] ?? {}),
    [NAMESPACE_NAME_LABEL]: obj.metadata.name,
  };
}

export const namespaceStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    const spec = (obj['spec'] as { finalizers?: string[] } | undefined) ?? {};
    const finalizers = new Set(spec.finalizers ?? []);
    finalizers.add(NAMESPACE_FINALIZER);
    obj['spec'] = { ...spec, finalizers: [...finalizers] };
    obj['status'] = { phase: 'Active' };
    setNameLabel(obj);
  },
  prepareForUpdate(obj, old) {
    obj['spec'] = {
      ...(obj['spec'] ?? {}),
      finalizers: (old['spec'] as { finalizers?: string[] } | undefined)?.finalizers ?? [],
    };
    setNameLabel(obj);
  },
};

export function namespaceSpecFinalizers(ns: StoredObject): string[] {
  return (ns['spec'] as { finalizers?: string[] } | undefined)?.finalizers ?? [];
}
