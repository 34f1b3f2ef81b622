/**
 * kcp-style logical cluster paths: `/clusters/<name>/api…` addresses one logical cluster and the wildcard `/clusters/*` paths all of
 * them (list and watch only). Names follow kcp: `^[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$`, `system:` names, or workspace
 * paths like `root:org:ws`.
 */

export const WILDCARD = '*';
/**
 * The annotation kcp sets on every object: the logical cluster it lives in.
 */
export const KCP_CLUSTER_ANNOTATION = 'kcp.io/cluster';

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function isLogicalClusterName(name: string): boolean {
  if (name.startsWith('system:'))
    return (
      name.length > 'system:'.length &&
      name
        .slice('system:'.length)
        .split(':')
        .every((p) => NAME.test(p))
    );
  return name.split(':').every((p) => NAME.test(p));
}

export type ClusterPath = { cluster: string | undefined; path: string } | { invalid: true };

/** Splits `/clusters/<name>/rest` into the cluster (undefined for `*`) and `/rest`; other paths belong to "". */
export function splitClusterPath(path: string): ClusterPath {
  if (!path.startsWith('/clusters/')) return { cluster: '', path };
  const rest = path.slice('/clusters/'.length);
  const slash = rest.indexOf('/');
  const name = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
  const inner = slash < 0 ? '/' : rest.slice(slash);
  if (name === WILDCARD) return { cluster: undefined, path: inner };
  if (!isLogicalClusterName(name)) return { invalid: true };
  return { cluster: name, path: inner };
}
