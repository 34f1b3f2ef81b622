/**
 * How a claimed resource's objects become visible in an export's virtual workspace, as in kcp: a controller labels
 * every object of a claimed resource in each workspace whose binding accepted the claim (one label per export and
 * claim), and the virtual workspace lists and watches that resource with the label as a selector. So objects that
 * existed before a claim was accepted enter open watches as ADDED once labelled, and leave them as DELETED when the
 * claim or the binding goes and the label is removed.
 */
import { createHash } from 'node:crypto';
import type { AdminClient } from '../admin-client.js';
import { KcpRequestError } from './errors.js';
import { clusterOf, nameOf, obj, objs, str } from './json.js';

const CLAIM_LABEL_PREFIX = 'claimed.internal.apis.kcp.io/';

/** The label that marks an object as visible through export `exportKey` for the claim on `groupResource`. */
export function claimLabel(exportKey: string, groupResource: string): string {
  return CLAIM_LABEL_PREFIX + createHash('sha256').update(`${exportKey}|${groupResource}`).digest('hex').slice(0, 32);
}

/** Per export key: per claimed `group/resource`, the logical clusters that accepted it. */
export type AcceptedClaims = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

/** Where a claimed resource is served (`/api/v1` or `/apis/<group>/<version>`), or undefined when its group is not. */
async function locate(client: AdminClient, groupResource: string): Promise<{ prefix: string; resource: string } | undefined> {
  const slash = groupResource.indexOf('/');
  const group = groupResource.slice(0, slash);
  const resource = groupResource.slice(slash + 1);
  if (group === '') return { prefix: '/api/v1', resource };
  const version = str(await client.getOrUndefined(`/clusters/*/apis/${group}`), 'preferredVersion', 'version');
  return version ? { prefix: `/apis/${group}/${version}`, resource } : undefined;
}

/** The wildcard collection paths of every claimed resource, so the controller can watch them for new objects. */
export async function claimedCollections(client: AdminClient, claimed: Iterable<string>): Promise<string[]> {
  const paths: string[] = [];
  for (const gr of new Set(claimed)) {
    const at = await locate(client, gr);
    if (at) paths.push(`/clusters/*${at.prefix}/${at.resource}`);
  }
  return paths;
}

/**
 * Brings every object of every claimed resource to the labels `accepted` asks for: the claim label of each export
 * whose claim its workspace accepted, and no other claim label. `claims` lists, per export key, what it claims.
 */
export async function labelClaimedObjects(
  client: AdminClient,
  claims: ReadonlyMap<string, ReadonlySet<string>>,
  accepted: AcceptedClaims,
): Promise<void> {
  const byResource = new Map<string, string[]>();
  for (const [key, grs] of claims) for (const gr of grs) (byResource.get(gr) ?? byResource.set(gr, []).get(gr)!).push(key);
  for (const [gr, exportKeys] of byResource) {
    const at = await locate(client, gr);
    if (!at) continue;
    for (const item of objs(await client.getOrUndefined(`/clusters/*${at.prefix}/${at.resource}`), 'items')) {
      const cluster = clusterOf(item);
      const labels = obj(item, 'metadata', 'labels');
      const patch: Record<string, string | null> = {};
      for (const key of exportKeys) {
        const label = claimLabel(key, gr);
        const want = accepted.get(key)?.get(gr)?.has(cluster) ?? false;
        if (want && labels[label] === undefined) patch[label] = 'true';
        if (!want && labels[label] !== undefined) patch[label] = null;
      }
      // Stale labels of exports that no longer claim this resource go too.
      for (const label of Object.keys(labels)) {
        if (label.startsWith(CLAIM_LABEL_PREFIX) && !exportKeys.some((k) => claimLabel(k, gr) === label)) patch[label] = null;
      }
      if (Object.keys(patch).length === 0) continue;
      const ns = str(item, 'metadata', 'namespace');
      const itemPath = `/clusters/${cluster}${at.prefix}/${ns ? `namespaces/${ns}/` : ''}${at.resource}/${nameOf(item)}`;
      try {
        await client.send('PATCH', itemPath, { metadata: { labels: patch } }, 'application/merge-patch+json');
      } catch (err) {
        // Deleted meanwhile: nothing to label.
        if (!(err instanceof KcpRequestError && err.status === 404)) throw err;
      }
    }
  }
}
