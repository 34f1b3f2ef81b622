/** Options of an in-memory API server, with their defaults. */
import type { TokenUser } from '../auth/token-user.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { UserInfo } from '../auth/authenticator.js';
import { InvalidOptionsError } from '../errors.js';

/**
 * Options of {@link startApiServer}: address, name, watch history and timeouts, tokens, authorization.
 */
export interface ApiServerOptions {
  /** Port to listen on (default 0: a free port). restart() reuses the port actually bound. */
  port?: number;
  /** Address to bind (default 127.0.0.1, which the server certificate covers). */
  host?: string;
  /** A name for logs and kubeconfig contexts (default `envtest-<port>`). */
  name?: string;
  /** Events kept for watch replay and exact lists (default 10,000). */
  historySize?: number;
  /** Watch length when the client sends no timeoutSeconds (default 300). */
  defaultWatchTimeoutSeconds?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60,000 ms, as the real server). */
  bookmarkIntervalMs?: number;
  /** Delay before a new CRD becomes Established and served (default 0: the next tick). */
  crdEstablishDelayMs?: number;
  /** Emulate the namespace controller: deleting a Namespace deletes its contents, then the Namespace (default false, like envtest). */
  namespaceController?: boolean;
  /** Emulate the garbage collector: cascade deletes through ownerReferences (default false, like envtest). */
  garbageCollector?: boolean;
  /**
   * Create what kube-apiserver writes at start besides namespaces, the `kubernetes` Service and the system
   * PriorityClasses: the RBAC bootstrap policy (`cluster-admin`, `admin`, `edit`, `view`, the `system:` roles and their
   * bindings), the API Priority and Fairness configuration, the default ServiceCIDR, and in kube-system the client-CA
   * and token-tracking ConfigMaps and the server's identity Lease (default true, like the real server; false spares
   * the ~160 objects per server for fleets of thousands). Never in logical-cluster mode.
   */
  bootstrapPolicy?: boolean;
  /** Bearer tokens accepted from the start: token → user name or user. */
  tokens?: Record<string, string | TokenUser>;
  /**
   * kcp mode: also serve `/clusters/<name>/…` (one logical cluster each, created on first use, with its own CRDs)
   * and the wildcard `/clusters/*` paths (list and watch across all); objects carry the `kcp.io/cluster` annotation. Default false.
   */
  logicalClusters?: boolean;
  /** Decides every resource request; a denial is 403 Forbidden. Default: everyone authenticated may do everything. */
  authorizer?: Authorizer;
  /** Extra URL prefixes mapped onto logical clusters (virtual workspaces); requires `logicalClusters: true`. */
  mounts?: PathMount[];
  /** Subresources answered by code instead of storage, like Gardener's `shoots/adminkubeconfig`. */
  actions?: ActionSubresource[];
  /** Aborts start-up: startApiServer then rejects and leaves nothing listening. */
  signal?: AbortSignal;
}

/**
 * A subresource that answers a POST with an object computed by `create` instead of a stored one, as
 * `serviceaccounts/token` and Gardener's `shoots/adminkubeconfig` do. Authorization sees verb `create` on the
 * subresource; the object posted to must exist (404 otherwise); discovery lists it with verb `create`.
 */
export interface ActionSubresource {
  readonly group: string;
  /** The plural resource it hangs off, e.g. `shoots`. */
  readonly resource: string;
  /** The subresource's name, e.g. `adminkubeconfig`. */
  readonly subresource: string;
  /** The kind posted and answered, e.g. `AdminKubeconfigRequest`, for discovery. */
  readonly kind: string;
  /** Answers one POST. Thrown errors answer 500 InternalError with their message. */
  create(request: ActionRequest): ActionResult | Promise<ActionResult>;
}

/** One POST to an {@link ActionSubresource}. */
export interface ActionRequest {
  /** The object the subresource belongs to, as stored. */
  readonly object: Readonly<Record<string, unknown>>;
  /** The request body, decoded. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly user: UserInfo;
  /** The logical cluster ('' outside kcp mode). */
  readonly cluster: string;
}

/** What an {@link ActionSubresource} answers: an object (201 Created), or a failure as a Kubernetes Status. */
export type ActionResult =
  | { readonly object: Record<string, unknown> }
  | { readonly failure: { readonly code: number; readonly reason: string; readonly message: string } };

/** Maps a URL prefix onto the logical cluster machinery, like kcp's virtual workspaces. */
export interface PathMount {
  /** Where a request path goes, or undefined if this mount does not apply. Evaluated per request. */
  resolve(path: string): MountedPath | undefined;
}

/**
 * Where a mounted request goes: a logical cluster and the API path inside it.
 */
export interface MountedPath {
  /** The logical cluster, or '*' for all of them (list and watch only). */
  cluster: string;
  /** The API path inside it, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  /**
   * Which logical clusters this mount shows, for a resource when one is given (kcp shows a claimed resource only in the
   * clusters that accepted the claim): filters wildcard lists/watches, and named access to others is 404. Default: all.
   */
  clusters?: (name: string, resource?: { group: string; resource: string }) => boolean;
  /** Which resources it serves (others 404, also in discovery). Default: all. */
  resources?: (group: string, resource: string) => boolean;
  /** Resources served read-only under this mount (writes get 405 MethodNotAllowed). */
  readOnlyResources?: (group: string, resource: string) => boolean;
  /**
   * A label selector added to every list and watch of this resource under the mount (kcp shows a claimed resource's
   * objects by their claim label), so objects enter and leave its watches as their labels change. Default: none.
   */
  labelSelector?: (group: string, resource: string) => string | undefined;
  /**
   * The life of whatever serves this mount (a kcp shard): when it aborts, open watches through the mount are cut, and
   * a mount resolved with an aborted signal answers 503 ServiceUnavailable. Default: always up.
   */
  signal?: AbortSignal;
}

/** Node timers fire immediately beyond this delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ResolvedOptions {
  port: number;
  host: string;
  name: string | undefined;
  historySize: number;
  defaultWatchTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  crdEstablishDelayMs: number;
  namespaceController: boolean;
  garbageCollector: boolean;
  tokens: Record<string, string | TokenUser>;
  logicalClusters: boolean;
  bootstrapPolicy: boolean;
  authorizer: Authorizer | undefined;
  mounts: PathMount[];
  actions: ActionSubresource[];
}

export function resolveOptions(opts: ApiServerOptions = {}): ResolvedOptions {
  const nonNegative = (name: string, v: number | undefined, def: number): number => {
    if (v === undefined) return def;
    if (!Number.isFinite(v) || v < 0) throw new InvalidOptionsError(`${name} must be a non-negative number, got ${String(v)}`);
    return v;
  };
  const port = nonNegative('port', opts.port, 0);
  if (!Number.isInteger(port) || port > 65535) throw new InvalidOptionsError(`port must be an integer in 0..65535, got ${port}`);
  const watchTimeout = nonNegative('defaultWatchTimeoutSeconds', opts.defaultWatchTimeoutSeconds, 300);
  if (watchTimeout === 0) throw new InvalidOptionsError('defaultWatchTimeoutSeconds must be positive');
  const bookmark = nonNegative('bookmarkIntervalMs', opts.bookmarkIntervalMs, 60_000);
  if (bookmark === 0 || bookmark > MAX_TIMER_MS) throw new InvalidOptionsError(`bookmarkIntervalMs must be in 1..${MAX_TIMER_MS}`);
  if (opts.mounts?.length && !opts.logicalClusters) throw new InvalidOptionsError('mounts require logicalClusters: true');
  return {
    port,
    host: opts.host ?? '127.0.0.1',
    name: opts.name,
    historySize: Math.max(1, Math.floor(nonNegative('historySize', opts.historySize, 10_000))),
    defaultWatchTimeoutSeconds: watchTimeout,
    bookmarkIntervalMs: bookmark,
    crdEstablishDelayMs: nonNegative('crdEstablishDelayMs', opts.crdEstablishDelayMs, 0),
    namespaceController: opts.namespaceController ?? false,
    garbageCollector: opts.garbageCollector ?? false,
    tokens: opts.tokens ?? {},
    logicalClusters: opts.logicalClusters ?? false,
    bootstrapPolicy: opts.bootstrapPolicy ?? true,
    authorizer: opts.authorizer,
    mounts: [...(opts.mounts ?? [])],
    actions: checkActions(opts.actions ?? []),
  };
}

function checkActions(actions: readonly ActionSubresource[]): ActionSubresource[] {
  const seen = new Set<string>();
  for (const a of actions) {
    const key = `${a?.group}/${a?.resource}/${a?.subresource}`;
    if (!a || typeof a.create !== 'function' || !a.resource || !a.subresource || !a.kind) {
      throw new InvalidOptionsError(`actions: ${key} needs resource, subresource, kind and a create function`);
    }
    if (seen.has(key)) throw new InvalidOptionsError(`actions: ${key} is given twice`);
    seen.add(key);
  }
  return [...actions];
}
