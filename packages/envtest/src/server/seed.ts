/** The objects a fresh cluster has: the four namespaces kube-apiserver creates at start-up. */
import { BUILTIN_RESOURCES, NAMESPACE_RESOURCE } from '../api/builtin-resources.js';
import { storageResource } from '../api/resource-type.js';
import type { ApiState } from './api-state.js';
import { createObject } from './ops/create.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'] as const;

/** Creates the system namespaces of a logical cluster the first time it is used. */
export function seedCluster(state: ApiState, cluster: string): void {
  if (state.seededClusters.has(cluster)) return;
  state.seededClusters.add(cluster);
  const type = BUILTIN_RESOURCES.find((t) => storageResource(t) === NAMESPACE_RESOURCE)!;
  for (const name of SYSTEM_NAMESPACES) {
    if (state.store.get({ cluster, resource: NAMESPACE_RESOURCE, namespace: '', name })) continue;
    createObject(
      state,
      { type, version: 'v1', cluster, namespace: undefined },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      { dryRun: false, fieldManager: undefined },
    );
  }
}
