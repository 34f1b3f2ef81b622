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
/**
 * Milo's user-extra key for the kind of the parent (Project) of a request.
 */
export const MILO_PARENT_TYPE_EXTRA = 'iam.miloapis.com/parent-type';
/**
 * Milo's user-extra key for the API group of the parent of a request.
 */
export const MILO_PARENT_API_GROUP_EXTRA = 'iam.miloapis.com/parent-api-group';
const MILO_PROJECT_GROUP = 'resourcemanager.miloapis.com';

/** Names that travel in a URL path as they are: no character any HTTP client rewrites (`/`, `%`, `#`, `?`, dot segments). */
const PLAIN_SEGMENT = /^[A-Za-z0-9_:+=@,-][A-Za-z0-9._:+=@,-]*$/;
/** Marks a base64url-encoded name; plain names never start with it. */
const ENCODED_PREFIX = '~';

/**
 * The path segment naming a member. Plain names are used as they are; any other name (kubeconfig paths, `ns/name`)
 * is base64url-encoded behind `~`, because kube-apiserver's webhook client decodes `%2F` and cleans the path, so
 * percent-encoding a `/` does not survive the trip.
 */
export function clusterSegment(cluster: string): string {
  return PLAIN_SEGMENT.test(cluster) ? cluster : ENCODED_PREFIX + Buffer.from(cluster, 'utf8').toString('base64url');
}

/** The URL path under which a member reaches `webhookPath`. */
export function clusterPath(cluster: string, webhookPath: string): string {
  return `${CLUSTER_PATH_PREFIX}${clusterSegment(cluster)}${webhookPath}`;
}

export type SplitPath = { cluster: string | undefined; path: string } | { invalid: string };

function decodeSegment(segment: string): string | undefined {
  if (segment.startsWith(ENCODED_PREFIX)) {
    const b64 = segment.slice(ENCODED_PREFIX.length);
    if (!/^[A-Za-z0-9_-]+$/.test(b64)) return undefined;
    const name = Buffer.from(b64, 'base64url').toString('utf8');
    return Buffer.from(name, 'utf8').toString('base64url') === b64 ? name : undefined;
  }
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Splits `/clusters/<segment>/rest` into the member and the webhook path; other paths have no member. */
export function splitClusterPath(pathname: string): SplitPath {
  if (!pathname.startsWith(CLUSTER_PATH_PREFIX)) return { cluster: undefined, path: pathname };
  const rest = pathname.slice(CLUSTER_PATH_PREFIX.length);
  const slash = rest.indexOf('/');
  const segment = slash < 0 ? rest : rest.slice(0, slash);
  const cluster = decodeSegment(segment);
  if (cluster === undefined) return { invalid: `the cluster segment ${JSON.stringify(segment)} is not a valid cluster name encoding` };
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
