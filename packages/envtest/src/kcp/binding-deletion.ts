/**
 * Deleting an APIBinding, as kcp's APIBinding deletion controller does: every binding carries a finalizer; once the
 * binding is being deleted, every object of its bound resources in its workspace is deleted (so watchers through the
 * virtual workspace see a DELETED event for each), and only when none is left does the finalizer go and the binding
 * with it. Objects of claimed resources are not the binding's and stay (they only lose their claim label).
 */
import type { AdminClient } from '../admin-client.js';
import { KcpRequestError } from './errors.js';
import { at, nameOf, objs, str, strs } from './json.js';

export const API_BINDING_FINALIZER = 'apis.kcp.io/apibinding-finalizer';

const finalizersOf = (o: unknown): string[] => strs(o, 'metadata', 'finalizers');

/** Whether `binding` is being deleted. */
export const isDeleting = (binding: unknown): boolean => Boolean(at(binding, 'metadata', 'deletionTimestamp'));

/** Adds the finalizer to a binding that lacks it (the resourceVersion makes a stale write a conflict); resolves true. */
export async function ensureFinalizer(client: AdminClient, path: string, binding: unknown): Promise<true> {
  const finalizers = finalizersOf(binding);
  if (finalizers.includes(API_BINDING_FINALIZER)) return true;
  const metadata = { finalizers: [...finalizers, API_BINDING_FINALIZER], resourceVersion: str(binding, 'metadata', 'resourceVersion') };
  await client.send('PATCH', path, { metadata }, 'application/merge-patch+json');
  return true;
}

/**
 * Deletes the objects of the binding's bound resources (`status.boundResources`) in `cluster`, then removes the
 * finalizer. Returns false while objects remain (their own finalizers hold them): call again later.
 */
export async function finishDeletion(client: AdminClient, cluster: string, path: string, binding: unknown): Promise<boolean> {
  let remaining = 0;
  for (const r of objs(binding, 'status', 'boundResources')) {
    const version = strs(r, 'storageVersions')[0];
    if (!version) continue;
    const base = `/clusters/${cluster}/apis/${str(r, 'group')}/${version}`;
    const resource = str(r, 'resource') ?? '';
    for (const item of objs(await client.getOrUndefined(`${base}/${resource}`), 'items')) {
      remaining++;
      if (at(item, 'metadata', 'deletionTimestamp')) continue;
      const ns = str(item, 'metadata', 'namespace');
      try {
        await client.send('DELETE', `${base}/${ns ? `namespaces/${ns}/` : ''}${resource}/${nameOf(item)}`);
        if (finalizersOf(item).length === 0) remaining--;
      } catch (err) {
        if (!(err instanceof KcpRequestError && err.status === 404)) throw err;
        remaining--;
      }
    }
  }
  if (remaining > 0) return false;
  const finalizers = finalizersOf(binding).filter((f) => f !== API_BINDING_FINALIZER);
  if (finalizers.length === finalizersOf(binding).length) return true;
  const metadata = { finalizers, resourceVersion: str(binding, 'metadata', 'resourceVersion') };
  await client.send('PATCH', path, { metadata }, 'application/merge-patch+json');
  return true;
}
