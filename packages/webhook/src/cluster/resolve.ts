/**
 * Which fleet member a review came from. Three ways a member can reach one shared server: its own URL path
 * (`/clusters/<name>/<webhook path>`, written by the configuration keeper), kcp's `kcp.io/cluster` annotation on the
 * object, and Milo's project in the requesting user's extra. The path is set by whoever configured the member; the
 * other two are only as trustworthy as the API server that fills them in, so each source is enabled explicitly.
 */
import type { AdmissionRequest } from '../admission/types.js';

/** Where a review's cluster name may come from. */
export type ClusterSource = 'path' | 'kcp' | 'milo';

/** Path prefix of per-member webhook URLs. */
export const CLUSTER_PATH_PREFIX = '/clusters/';
/** kcp's logical-cluster annotation, set by kcp on every object it serves. */
export const KCP_CLUSTER_ANNOTATION = 'kcp.io/cluster';
/** Milo's user-extra keys, set by Milo's API server for requests through a project control plane. */
export const MILO_PARENT_NAME_EXTRA = 'iam.miloapis.com/parent-name';
export const MILO_PARENT_TYPE_EXTRA = 'iam.miloapis.com/parent-type';
export const MILO_PARENT_API_GROUP_EXTRA = 'iam.miloapis.com/parent-api-group';
const MILO_PROJECT_GROUP = 'resourcemanager.miloapis.com';

/** The URL path under which a member reaches `webhookPath` (names are percent-encoded into one segment). */
export function clusterPath(cluster: string, webhookPath: string): string {
  return `${CLUSTER_PATH_PREFIX}${encodeURIComponent(cluster)}${webhookPath}`;
}

export type SplitPath = { cluster: string | undefined; path: string } | { invalid: string };

/** Splits `/clusters/<name>/rest` into the member and the webhook path; other paths have no member. */
export function splitClusterPath(pathname: string): SplitPath {
  if (!pathname.startsWith(CLUSTER_PATH_PREFIX)) return { cluster: undefined, path: pathname };
  const rest = pathname.slice(CLUSTER_PATH_PREFIX.length);
  const slash = rest.indexOf('/');
  const encoded = slash < 0 ? rest : rest.slice(0, slash);
  let cluster: string;
  try {
    cluster = decodeURIComponent(encoded);
  } catch {
    return { invalid: `the cluster segment ${JSON.stringify(encoded)} is not valid percent-encoding` };
  }
  if (cluster === '') return { invalid: 'the cluster segment of the path is empty' };
  return { cluster, path: slash < 0 ? '/' : rest.slice(slash) };
}

function kcpCluster(req: AdmissionRequest): string | undefined {
  for (const obj of [req.object, req.oldObject]) {
    const v = obj?.metadata?.annotations?.[KCP_CLUSTER_ANNOTATION];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

function miloProject(req: AdmissionRequest): string | undefined {
  const extra = req.userInfo?.extra ?? {};
  const type = extra[MILO_PARENT_TYPE_EXTRA];
  const name = extra[MILO_PARENT_NAME_EXTRA];
  const group = extra[MILO_PARENT_API_GROUP_EXTRA];
  if (type?.length !== 1 || type[0] !== 'Project' || name?.length !== 1 || !name[0]) return undefined;
  if (group !== undefined && (group.length !== 1 || group[0] !== MILO_PROJECT_GROUP)) return undefined;
  return name[0];
}

export type Resolution = { cluster: string; source: ClusterSource | 'local' } | { conflict: string };

/**
 * The member a review is for: the first enabled source that names one, all of them agreeing; the local cluster ""
 * when none does. Two sources naming different members is a conflict, never a guess.
 */
export function resolveCluster(
  req: AdmissionRequest,
  pathCluster: string | undefined,
  sources: ReadonlySet<ClusterSource>,
  rename: (source: ClusterSource, value: string) => string,
): Resolution {
  const found: { source: ClusterSource; cluster: string }[] = [];
  if (pathCluster !== undefined && sources.has('path')) found.push({ source: 'path', cluster: rename('path', pathCluster) });
  const kcp = sources.has('kcp') ? kcpCluster(req) : undefined;
  if (kcp !== undefined) found.push({ source: 'kcp', cluster: rename('kcp', kcp) });
  const milo = sources.has('milo') ? miloProject(req) : undefined;
  if (milo !== undefined) found.push({ source: 'milo', cluster: rename('milo', milo) });
  const first = found[0];
  if (!first) return { cluster: '', source: 'local' };
  const other = found.find((f) => f.cluster !== first.cluster);
  if (other)
    return {
      conflict: `the review names two clusters: ${JSON.stringify(first.cluster)} (${first.source}) and ${JSON.stringify(other.cluster)} (${other.source})`,
    };
  return first;
}
