/**
 * Workspace types and workspace initialization, as the fake kcp does them. A WorkspaceType with `initializer: true`
 * publishes one initializingworkspaces virtual-workspace URL per shard in `status.virtualWorkspaces`; a workspace of
 * that type starts with its initializer (`<type's logical cluster>:<type name>`) in its LogicalCluster's
 * `status.initializers` and phase Initializing, and is Ready once every initializer removed itself. As in kcp, each
 * LogicalCluster carries one label per pending initializer, and the initializingworkspaces virtual workspace selects
 * by it: removing an initializer makes the LogicalCluster leave that virtual workspace's watches as DELETED.
 */
import { createHash } from 'node:crypto';
import type { AdminClient } from '../admin-client.js';
import { KCP_CORE_GROUP, KCP_TENANCY_GROUP } from './crds.js';
import { KcpRequestError } from './errors.js';
import type { Json } from './json.js';
import { at, clusterOf, nameOf, obj, objs, statusUpdate, str, strs } from './json.js';

const INITIALIZER_LABEL_PREFIX = 'initializer.internal.kcp.io/';
export const LOGICAL_CLUSTERS = `/apis/${KCP_CORE_GROUP}/v1alpha1/logicalclusters`;
export const WORKSPACE_TYPES = `/apis/${KCP_TENANCY_GROUP}/v1alpha1/workspacetypes`;

/** The label that marks a LogicalCluster as still waiting for `initializer`. */
export function initializerLabel(initializer: string): string {
  return INITIALIZER_LABEL_PREFIX + createHash('sha256').update(initializer).digest('hex').slice(0, 32);
}

/** The initializer a WorkspaceType named `name` in logical cluster `cluster` adds to workspaces of its type. */
export const initializerOf = (cluster: string, name: string): string => `${cluster}:${name}`;

/** The LogicalCluster of a new workspace: its path, and the initializers its type asks for. */
export function logicalClusterFor(path: string, initializers: string[]): Json {
  return {
    apiVersion: `${KCP_CORE_GROUP}/v1alpha1`,
    kind: 'LogicalCluster',
    metadata: { name: 'cluster', annotations: { 'kcp.io/path': path } },
    spec: { initializers },
  };
}

/**
 * Brings WorkspaceType statuses and LogicalClusters to what they imply; returns, per logical cluster, its pending
 * initializers (what the initializingworkspaces virtual workspaces show it for).
 */
export async function reconcileWorkspaceTypes(
  client: AdminClient,
  initializingUrls: (initializer: string) => string[],
): Promise<Map<string, Set<string>>> {
  for (const wst of objs(await client.send('GET', `/clusters/*${WORKSPACE_TYPES}`), 'items')) {
    const cluster = clusterOf(wst);
    const urls = at(wst, 'spec', 'initializer') === true ? initializingUrls(initializerOf(cluster, nameOf(wst))) : [];
    const status = { ...obj(wst, 'status'), virtualWorkspaces: urls.map((url) => ({ url })) };
    if (JSON.stringify(status) === JSON.stringify(obj(wst, 'status'))) continue;
    await putStatus(client, `/clusters/${cluster}${WORKSPACE_TYPES}/${nameOf(wst)}`, wst, status);
  }

  const pending = new Map<string, Set<string>>();
  for (const lc of objs(await client.send('GET', `/clusters/*${LOGICAL_CLUSTERS}`), 'items')) {
    const cluster = clusterOf(lc);
    const path = `/clusters/${cluster}${LOGICAL_CLUSTERS}/${nameOf(lc)}`;
    if (str(lc, 'status', 'phase') === undefined) {
      // New: every initializer of its type is pending.
      const initializers = strs(lc, 'spec', 'initializers');
      await putStatus(client, path, lc, { phase: initializers.length ? 'Initializing' : 'Ready', initializers });
      continue;
    }
    const initializers = strs(lc, 'status', 'initializers');
    pending.set(cluster, new Set(initializers));
    if (initializers.length === 0 && str(lc, 'status', 'phase') === 'Initializing') {
      await putStatus(client, path, lc, { ...obj(lc, 'status'), phase: 'Ready' });
    }
    const want = new Set(initializers.map(initializerLabel));
    const labels = obj(lc, 'metadata', 'labels');
    const patch: Record<string, string | null> = {};
    for (const label of want) if (labels[label] === undefined) patch[label] = '';
    for (const label of Object.keys(labels)) if (label.startsWith(INITIALIZER_LABEL_PREFIX) && !want.has(label)) patch[label] = null;
    if (Object.keys(patch).length === 0) continue;
    try {
      await client.send('PATCH', path, { metadata: { labels: patch } }, 'application/merge-patch+json');
    } catch (err) {
      if (!(err instanceof KcpRequestError && err.status === 404)) throw err;
    }
  }
  return pending;
}

/** Writes a status from a listed object; losing a race to a newer write is fine (its event brings another pass). */
async function putStatus(client: AdminClient, path: string, listed: Json, status: Json): Promise<void> {
  try {
    await client.send('PUT', `${path}/status`, statusUpdate(listed, status));
  } catch (err) {
    if (!(err instanceof KcpRequestError && (err.status === 409 || err.status === 404))) throw err;
  }
}
