/** Namespace lifecycle admission: no writes into a missing namespace (404) or one being deleted (403). */
import { NAMESPACE_RESOURCE } from '../../api/builtin-resources.js';
import { isDeleting } from '../../api/object-meta.js';
import type { GroupResource } from '../../api/status-error.js';
import { forbidden, notFound } from '../../api/status-error.js';
import type { ApiState } from '../api-state.js';

export function admitNamespacedCreate(state: ApiState, cluster: string, namespace: string, gr: GroupResource, name: string): void {
  const ns = state.store.get({ cluster, resource: NAMESPACE_RESOURCE, namespace: '', name: namespace });
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if (isDeleting(ns)) throw forbidden(gr, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
}
