/**
 * The URL shapes of the fake kcp, as envtest path mounts:
 * - the APIExport virtual workspace of each shard, `/shards/<shard>/services/apiexport/<export-cluster>/<export>/clusters/{*|<lc>}/…`:
 *   the exported resources (read-write) and APIBindings (read-only) of the workspaces on that shard bound to the export;
 * - the front proxy's workspace paths, `/clusters/root:org:ws/…`, for the logical cluster of that workspace.
 * Both read the controller's latest view on every request, so bindings take effect without re-mounting.
 */
import type { MountedPath, PathMount } from '../server/options.js';
import { KCP_APIS_GROUP } from './crds.js';
import type { KcpController } from './kcp-controller.js';
import { exportKey } from './kcp-controller.js';
import type { WorkspaceDirectory } from './workspaces.js';

const VW = /^\/shards\/([^/]+)\/services\/apiexport\/([^/]+)\/([^/]+)\/clusters\/([^/]+)(\/.*)?$/;

const isBindings = (group: string, resource: string): boolean => group === KCP_APIS_GROUP && resource === 'apibindings';

export function apiExportVirtualWorkspace(controller: KcpController, workspaces: WorkspaceDirectory): PathMount {
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
      const key = exportKey(exportCluster, exportName);
      if (!controller.views.has(key)) return undefined;
      return {
        cluster,
        path: m[5] ?? '/',
        clusters: (name) => (controller.views.get(key)?.boundClusters.has(name) ?? false) && workspaces.shardOf(name) === shard,
        resources: (group, resource) =>
          isBindings(group, resource) || (controller.views.get(key)?.resources.has(`${group}/${resource}`) ?? false),
        readOnlyResources: isBindings,
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
