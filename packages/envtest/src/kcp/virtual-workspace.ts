/**
 * The URL shapes of the fake kcp, as envtest path mounts:
 * - the APIExport virtual workspace of each shard, `/shards/<shard>/services/apiexport/<export-cluster>/<export>/clusters/{*|<lc>}/…`:
 *   the exported resources (read-write) and APIBindings (read-only) of the workspaces on that shard bound to the export,
 *   and each claimed resource in the workspaces whose binding accepted the claim; it lives as long as its shard (`life`);
 * - the initializingworkspaces virtual workspace of each shard (below);
 * - the front proxy's workspace paths, `/clusters/root:org:ws/…`, for the logical cluster of that workspace.
 * All read the controller's latest view on every request, so bindings take effect without re-mounting.
 */
import type { MountedPath, PathMount } from '../server/options.js';
import { KCP_APIS_GROUP, KCP_CORE_GROUP } from './crds.js';
import type { ExportView, KcpController } from './kcp-controller.js';
import { exportKey } from './kcp-controller.js';
import { claimLabel } from './claim-labels.js';
import { groupResourceKey } from './permission-claims.js';
import { initializerLabel } from './workspace-types.js';
import type { WorkspaceDirectory } from './workspaces.js';

const VW = /^\/shards\/([^/]+)\/services\/apiexport\/([^/]+)\/([^/]+)\/clusters\/([^/]+)(\/.*)?$/;

const isBindings = (group: string, resource: string): boolean => group === KCP_APIS_GROUP && resource === 'apibindings';

export function apiExportVirtualWorkspace(
  controller: KcpController,
  workspaces: WorkspaceDirectory,
  life: (shard: string) => AbortSignal | undefined,
): PathMount {
  return {
    resolve(path: string): MountedPath | undefined {
      const m = VW.exec(path);
      if (!m) return undefined;
      let shard: string, exportCluster: string, exportName: string, cluster: string;
      try {
        [shard, exportCluster, exportName, cluster] = [m[1]!, m[2]!, m[3]!, m[4]!].map(decodeURIComponent) as [
          string,
          string,
          string,
          string,
        ];
      } catch {
        return undefined;
      }
      const exportKeyOf = exportKey(exportCluster, exportName);
      if (!controller.views.has(exportKeyOf)) return undefined;
      const signal = life(shard);
      const view = (): ExportView | undefined => controller.views.get(exportKeyOf);
      const gr = (group: string, resource: string): string => groupResourceKey(group, resource);
      return {
        cluster,
        path: m[5] ?? '/',
        clusters: (name, res) => {
          const v = view();
          if (!v?.boundClusters.has(name) || workspaces.shardOf(name) !== shard) return false;
          if (!res || isBindings(res.group, res.resource) || v.resources.has(gr(res.group, res.resource))) return true;
          return v.claims.get(gr(res.group, res.resource))?.has(name) ?? false;
        },
        resources: (group, resource) =>
          isBindings(group, resource) ||
          (view()?.resources.has(gr(group, resource)) ?? false) ||
          (view()?.claims.has(gr(group, resource)) ?? false),
        readOnlyResources: isBindings,
        // A claimed resource shows only the objects labelled for this export's claim (claim-labels.ts).
        labelSelector: (group, resource) => {
          const v = view();
          const key = gr(group, resource);
          return v && v.claims.has(key) && !v.resources.has(key) && !isBindings(group, resource) ? claimLabel(exportKeyOf, key) : undefined;
        },
        ...(signal ? { signal } : {}),
      };
    },
  };
}

const CLUSTER_PATH = /^\/clusters\/([^/]*:[^/]*)(\/.*)?$/;

export function workspacePaths(workspaces: WorkspaceDirectory): PathMount {
  return {
    resolve(path: string): MountedPath | undefined {
      const m = CLUSTER_PATH.exec(path);
      if (!m) return undefined;
      const ws = workspaces.byPathOrName(m[1]!);
      return ws ? { cluster: ws.name, path: m[2] ?? '/' } : undefined;
    },
  };
}

const INITIALIZING = /^\/shards\/([^/]+)\/services\/initializingworkspaces\/([^/]+)\/clusters\/([^/]+)(\/.*)?$/;

const isLogicalClusters = (group: string, resource: string): boolean => group === KCP_CORE_GROUP && resource === 'logicalclusters';

/**
 * The initializingworkspaces virtual workspace of each shard, `/shards/<shard>/services/initializingworkspaces/<initializer>/clusters/{*|<lc>}/…`:
 * across clusters only the LogicalClusters of that shard still waiting for the initializer (selected by their
 * initializer label, workspace-types.ts), and in one such cluster its whole API, as kcp serves it to initializers.
 */
export function initializingVirtualWorkspace(
  controller: KcpController,
  workspaces: WorkspaceDirectory,
  life: (shard: string) => AbortSignal | undefined,
): PathMount {
  return {
    resolve(path: string): MountedPath | undefined {
      const m = INITIALIZING.exec(path);
      if (!m) return undefined;
      let shard: string, initializer: string, cluster: string;
      try {
        [shard, initializer, cluster] = [m[1]!, m[2]!, m[3]!].map(decodeURIComponent) as [string, string, string];
      } catch {
        return undefined;
      }
      const wildcard = cluster === '*';
      const signal = life(shard);
      return {
        cluster,
        path: m[4] ?? '/',
        clusters: (name) =>
          workspaces.shardOf(name) === shard && (wildcard || (controller.initializers.get(name)?.has(initializer) ?? false)),
        ...(wildcard ? { resources: isLogicalClusters } : {}),
        labelSelector: (group, resource) => (wildcard && isLogicalClusters(group, resource) ? initializerLabel(initializer) : undefined),
        ...(signal ? { signal } : {}),
      };
    },
  };
}
