/**
 * The mount that makes the in-memory server answer like Milo's project router: every request under
 * `/apis/resourcemanager.miloapis.com/v1alpha1/projects/<name>/control-plane/…` is served by the logical cluster
 * `<name>`, so each project has its own, complete Kubernetes API (discovery included) on the one server.
 */
import type { MountedPath, PathMount } from '../server/options.js';
import { isLogicalClusterName } from '../cluster-path.js';

export const PROJECTS_PATH = '/apis/resourcemanager.miloapis.com/v1alpha1/projects';
const CONTROL_PLANE = '/control-plane';

/** `servesProject` decides which projects have a control plane (others answer 404); default all. */
export function projectControlPlaneMount(servesProject: (name: string) => boolean = () => true): PathMount {
  return {
    resolve(path: string): MountedPath | undefined {
      if (!path.startsWith(`${PROJECTS_PATH}/`)) return undefined;
      const rest = path.slice(PROJECTS_PATH.length + 1);
      const slash = rest.indexOf('/');
      if (slash < 0) return undefined;
      const after = rest.slice(slash);
      if (after !== CONTROL_PLANE && !after.startsWith(`${CONTROL_PLANE}/`)) return undefined;
      let name: string;
      try {
        name = decodeURIComponent(rest.slice(0, slash));
      } catch {
        return undefined;
      }
      // A name that cannot be a logical cluster (or `*`) falls through to the Project resource itself, which 404s.
      if (!isLogicalClusterName(name) || name.includes(':')) return undefined;
      return { cluster: name, path: after.slice(CONTROL_PLANE.length) || '/', clusters: servesProject };
    },
  };
}
