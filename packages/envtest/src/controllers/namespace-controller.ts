/**
 * Opt-in emulation of kube-controller-manager's namespace controller (envtest runs none): when a Namespace is being
 * deleted, delete everything in it, wait for finalizers, then drop the `kubernetes` spec finalizer so it goes away.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { NAMESPACE_RESOURCE } from '../api/builtin-resources.js';
import { isDeleting } from '../api/object-meta.js';
import { storageResource } from '../api/resource-type.js';
import { NAMESPACE_FINALIZER, namespaceSpecFinalizers } from '../api/strategies/namespace.js';
import type { ApiState } from '../server/api-state.js';
import { commitUpdate } from '../server/ops/commit.js';
import { deleteObject } from '../server/ops/delete.js';

const POLL_MS = 50;

export function startNamespaceController(state: ApiState): void {
  const unsubscribe = state.store.subscribe(NAMESPACE_RESOURCE, (e) => {
    if (e.type !== 'DELETED' && isDeleting(e.object) && namespaceSpecFinalizers(e.object).includes(NAMESPACE_FINALIZER))
      state.schedule(() => finalize(state, e.key.cluster, e.key.name), 0);
  });
  state.onDispose(unsubscribe);
}

function finalize(state: ApiState, cluster: string, name: string): void {
  const key = { cluster, resource: NAMESPACE_RESOURCE, namespace: '', name };
  const ns = state.store.get(key);
  if (!ns || !isDeleting(ns) || !namespaceSpecFinalizers(ns).includes(NAMESPACE_FINALIZER)) return;
  const namespaced = state.registry.all(cluster).filter((t) => t.namespaced);
  const contents = (type: (typeof namespaced)[number]) =>
    state.store.snapshot({ resource: storageResource(type), cluster, namespace: name }).items;
  for (const type of namespaced)
    for (const { object } of contents(type))
      if (!isDeleting(object))
        deleteObject(
          state,
          { type, version: type.versions[0]!, cluster, namespace: name, name: object.metadata.name, subresource: undefined },
          { dryRun: false },
        );
  if (namespaced.some((t) => contents(t).length > 0)) {
    state.schedule(() => finalize(state, cluster, name), POLL_MS);
    return;
  }
  const next = cloneJson(ns);
  next['spec'] = {
    ...(ns['spec'] ?? {}),
    finalizers: namespaceSpecFinalizers(ns).filter((f) => f !== NAMESPACE_FINALIZER),
  };
  commitUpdate(state, key, next, ns, false);
}
