/**
 * `startKcpServer`: the in-memory API server in kcp mode with what a kcp provider talks to — workspaces (logical
 * clusters on one or more shards), the apis.kcp.io API (APIResourceSchema, APIExport, APIBinding,
 * APIExportEndpointSlice), a controller that binds exports and publishes endpoint URLs, and the APIExport virtual
 * workspace. All shards share one HTTPS server: shard `<s>` serves its virtual workspaces under `/shards/<s>`, so
 * an endpoint slice lists one distinct URL per shard hosting a bound workspace, as a sharded kcp does; a shard can
 * be stopped and started again, which its virtual workspaces' clients see as a restart. Workspace types with
 * initializers and the initializingworkspaces virtual workspace serve kcp's workspace initialization.
 */
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import type { ApiServerOptions } from '../server/options.js';
import type { KubeconfigOptions } from '../kubeconfig.js';
import { AdminClient } from '../admin-client.js';
import { KCP_APIS_GROUP, KCP_CORE_GROUP, KCP_TENANCY_GROUP, kcpCrds } from './crds.js';
import { KcpFixtureError, KcpRequestError, KcpTimeoutError } from './errors.js';
import { KcpController } from './kcp-controller.js';
import { at, nameOf, objs, str } from './json.js';
import { acceptedClaim, exportClaim } from './permission-claims.js';
import { apiExportVirtualWorkspace, initializingVirtualWorkspace, workspacePaths } from './virtual-workspace.js';
import { LOGICAL_CLUSTERS, WORKSPACE_TYPES, initializerOf, logicalClusterFor } from './workspace-types.js';
import type { Workspace } from './workspaces.js';
import { WorkspaceDirectory } from './workspaces.js';

export interface KcpServerOptions extends Omit<ApiServerOptions, 'logicalClusters' | 'mounts'> {
  /** Shard names (DNS labels), in the order endpoint slices list them. Default `['shard-1']`. */
  shards?: string[];
}

export interface CreateExportOptions {
  /** The APIExport's name. */
  name: string;
  /** APIResourceSchemas (full objects) created in the export's workspace first. */
  schemas?: Record<string, unknown>[];
  /** v1alpha1 (`spec.latestResourceSchemas`, the seed's form) or v1alpha2 (`spec.resources`). Default v1alpha1. */
  version?: 'v1alpha1' | 'v1alpha2';
  /** Resources the export claims (e.g. `{ group: '', resource: 'configmaps' }`), all verbs on every object. */
  permissionClaims?: GroupResource[];
}

export interface GroupResource {
  /** "" for the core group. */
  group: string;
  resource: string;
}

export interface BindOptions {
  /** The export's workspace path (or logical cluster name). */
  exportPath: string;
  exportName: string;
  /** The APIBinding's name. Default: the export's name. */
  name?: string;
  /** Default v1alpha2, as the seed's consumers use. */
  version?: 'v1alpha1' | 'v1alpha2';
  /** Claims of the export this binding accepts (kcp serves a claimed resource only where it was accepted). */
  acceptClaims?: GroupResource[];
  /** Resolve only once the binding is Ready (default true). */
  waitReady?: boolean;
  /** How long to wait for Ready (default 10 s). */
  timeoutMs?: number;
}

export interface CreateWorkspaceOptions {
  /** The shard it lives on (default the first). */
  shard?: string;
  /** Its WorkspaceType (`createWorkspaceType`): with `initializer: true`, the workspace waits for that initializer. */
  type?: { path: string; name: string };
}

export interface KcpServer {
  /** The underlying server: faults, stats, tokens, restart. */
  readonly server: ApiServer;
  readonly url: string;
  readonly shards: readonly string[];
  /** The `root` workspace (logical cluster `root`, first shard). */
  readonly root: Workspace;
  /** Admin kubeconfig, for a workspace (its logical cluster) or the bare server. */
  kubeconfig(workspace?: Workspace, opts?: Omit<KubeconfigOptions, 'logicalCluster'>): string;
  /**
   * Creates a workspace (path `root:…`) with the kcp APIs served in it and its LogicalCluster (`cluster`), which is
   * Initializing until every initializer of its type removed itself from `status.initializers`, then Ready.
   */
  createWorkspace(path: string, opts?: CreateWorkspaceOptions): Promise<Workspace>;
  /**
   * Creates a WorkspaceType in `workspace`. With `initializer: true` its status lists one initializingworkspaces
   * virtual-workspace URL per shard, and workspaces of the type wait for initializer `<workspace's cluster>:<name>`.
   */
  createWorkspaceType(workspace: Workspace, opts: { name: string; initializer?: boolean }): Promise<Record<string, unknown>>;
  /** The initializingworkspaces virtual workspace URL of a workspace type on a shard, as its status publishes it. */
  initializingUrl(shard: string, typeWorkspace: Workspace, typeName: string): string;
  /** Creates the schemas and an APIExport in `workspace`; the controller adds its endpoint slice. */
  createExport(workspace: Workspace, opts: CreateExportOptions): Promise<Record<string, unknown>>;
  /** Creates an APIBinding in `workspace` and (by default) waits until it is Ready. Returns the binding. */
  bind(workspace: Workspace, opts: BindOptions): Promise<Record<string, unknown>>;
  /**
   * Deletes an APIBinding. As in kcp, the binding's finalizer keeps it until every object of its bound resources in
   * the workspace is deleted; it resolves once the deletion started.
   */
  unbind(workspace: Workspace, name: string): Promise<void>;
  /**
   * Stops a shard: its virtual workspaces' open watches break and their requests get 503 until `startShard`. The
   * fixtures' own paths (`/clusters/…`) stay up, so a test can change the shard's workspaces meanwhile.
   */
  stopShard(shard: string): void;
  /** Starts a stopped shard again; its watch cache starts afresh, so resuming an older watch gets 410 Gone. */
  startShard(shard: string): void;
  /** The virtual workspace URL of an export on a shard, as endpoint slices publish it. */
  endpointUrl(shard: string, exportWorkspace: Workspace, exportName: string): string;
  /** Reads the export's endpoint slice URLs. */
  endpointUrls(exportWorkspace: Workspace, sliceName: string): Promise<string[]>;
  /** Stops the controller and the server. Idempotent. */
  close(): Promise<void>;
}

const SHARD = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const V1A1 = `${KCP_APIS_GROUP}/v1alpha1`;

/** Starts a fake kcp: workspaces, APIExports and their virtual workspaces on in-memory servers, on one or more shards. */
export async function startKcpServer(opts: KcpServerOptions = {}): Promise<KcpServer> {
  const shards = opts.shards ?? ['shard-1'];
  if (shards.length === 0 || new Set(shards).size !== shards.length || !shards.every((s) => SHARD.test(s))) {
    throw new KcpFixtureError(`shards must be distinct DNS labels, at least one; got ${JSON.stringify(shards)}`);
  }
  const { shards: _s, ...serverOpts } = opts;
  const server = await startApiServer({ ...serverOpts, logicalClusters: true });
  const fake = new FakeKcp(server, shards);
  try {
    await fake.init();
  } catch (err) {
    await fake.close();
    throw err;
  }
  return fake;
}

class FakeKcp implements KcpServer {
  private readonly client: AdminClient;
  private readonly workspaces = new WorkspaceDirectory();
  private readonly controller: KcpController;
  /** Per shard, the life of its current run; aborted while the shard is stopped. */
  private readonly shardLife = new Map<string, AbortController>();
  private closed = false;
  root!: Workspace;

  constructor(
    readonly server: ApiServer,
    readonly shards: readonly string[],
  ) {
    this.client = new AdminClient(server.url, server.kubeconfig(), KcpRequestError);
    this.controller = new KcpController(
      this.client,
      this.workspaces,
      (shard, c, name) => this.endpointUrlOf(shard, c, name),
      shards,
      (shard, initializer) => this.initializingUrlOf(shard, initializer),
    );
    server.addMount(workspacePaths(this.workspaces));
    for (const shard of shards) this.shardLife.set(shard, new AbortController());
    const life = (shard: string): AbortSignal | undefined => this.shardLife.get(shard)?.signal;
    server.addMount(apiExportVirtualWorkspace(this.controller, this.workspaces, life));
    server.addMount(initializingVirtualWorkspace(this.controller, this.workspaces, life));
  }

  get url(): string {
    return this.server.url;
  }

  async init(): Promise<void> {
    this.root = await this.createWorkspace('root');
    this.controller.start();
  }

  kubeconfig(workspace?: Workspace, opts: Omit<KubeconfigOptions, 'logicalCluster'> = {}): string {
    return this.server.kubeconfig(workspace ? { ...opts, logicalCluster: workspace.name } : opts);
  }

  async createWorkspace(path: string, opts: CreateWorkspaceOptions = {}): Promise<Workspace> {
    const shard = opts.shard ?? this.shards[0]!;
    if (!this.shards.includes(shard))
      throw new KcpFixtureError(`unknown shard ${JSON.stringify(shard)}; shards are ${this.shards.join(', ')}`);
    const existing = this.workspaces.byPathOrName(path);
    if (existing && existing.shard !== shard) throw new KcpFixtureError(`workspace ${path} already exists on shard ${existing.shard}`);
    const ws = this.workspaces.add(path, shard);
    for (const crd of kcpCrds) {
      try {
        await this.client.send('POST', `/clusters/${ws.name}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd);
      } catch (err) {
        if (!(err instanceof KcpRequestError && err.status === 409)) throw err;
      }
    }
    await this.until(
      `the kcp APIs in ${path}`,
      async () =>
        (await this.client.getOrUndefined(`/clusters/${ws.name}/apis/${KCP_APIS_GROUP}/v1alpha2`)) !== undefined &&
        (await this.client.getOrUndefined(`/clusters/${ws.name}/apis/${KCP_CORE_GROUP}/v1alpha1`)) !== undefined,
      5000,
    );
    try {
      await this.client.send(
        'POST',
        `/clusters/${ws.name}${LOGICAL_CLUSTERS}`,
        logicalClusterFor(path, await this.initializersFor(opts.type)),
      );
    } catch (err) {
      if (!(err instanceof KcpRequestError && err.status === 409)) throw err;
    }
    return ws;
  }

  /** The initializers a workspace of `type` starts with. */
  private async initializersFor(type: CreateWorkspaceOptions['type']): Promise<string[]> {
    if (!type) return [];
    const ws = this.workspaces.byPathOrName(type.path);
    const wst = ws && (await this.client.getOrUndefined(`/clusters/${ws.name}${WORKSPACE_TYPES}/${type.name}`));
    if (!ws || !wst) throw new KcpFixtureError(`no WorkspaceType ${type.name} in ${type.path}`);
    return at(wst, 'spec', 'initializer') === true ? [initializerOf(ws.name, type.name)] : [];
  }

  async createWorkspaceType(workspace: Workspace, opts: { name: string; initializer?: boolean }): Promise<Record<string, unknown>> {
    return this.client.send('POST', `/clusters/${workspace.name}${WORKSPACE_TYPES}`, {
      apiVersion: `${KCP_TENANCY_GROUP}/v1alpha1`,
      kind: 'WorkspaceType',
      metadata: { name: opts.name },
      spec: { initializer: opts.initializer ?? false },
    });
  }

  initializingUrl(shard: string, typeWorkspace: Workspace, typeName: string): string {
    return this.initializingUrlOf(shard, initializerOf(typeWorkspace.name, typeName));
  }

  private initializingUrlOf(shard: string, initializer: string): string {
    return `${this.server.url}/shards/${shard}/services/initializingworkspaces/${encodeURIComponent(initializer)}`;
  }

  async createExport(workspace: Workspace, opts: CreateExportOptions): Promise<Record<string, unknown>> {
    const base = `/clusters/${workspace.name}/apis/${KCP_APIS_GROUP}`;
    const schemas = opts.schemas ?? [];
    for (const s of schemas)
      await this.client.send('POST', `${base}/v1alpha1/apiresourceschemas`, { apiVersion: V1A1, kind: 'APIResourceSchema', ...s });
    const names = schemas.map(nameOf);
    const version = opts.version ?? 'v1alpha1';
    const spec: Record<string, unknown> =
      version === 'v1alpha1'
        ? { latestResourceSchemas: names }
        : {
            resources: schemas.map((s, i) => ({
              name: str(s, 'spec', 'names', 'plural'),
              group: str(s, 'spec', 'group'),
              schema: names[i],
              storage: { crd: {} },
            })),
          };
    if (opts.permissionClaims?.length)
      spec['permissionClaims'] = opts.permissionClaims.map((c) => exportClaim(version, c.group, c.resource));
    return this.client.send('POST', `${base}/${version}/apiexports`, {
      apiVersion: `${KCP_APIS_GROUP}/${version}`,
      kind: 'APIExport',
      metadata: { name: opts.name },
      spec,
    });
  }

  async bind(workspace: Workspace, opts: BindOptions): Promise<Record<string, unknown>> {
    const version = opts.version ?? 'v1alpha2';
    const name = opts.name ?? opts.exportName;
    const base = `/clusters/${workspace.name}/apis/${KCP_APIS_GROUP}/${version}/apibindings`;
    const binding = {
      apiVersion: `${KCP_APIS_GROUP}/${version}`,
      kind: 'APIBinding',
      metadata: { name },
      spec: {
        reference: { export: { path: opts.exportPath, name: opts.exportName } },
        ...(opts.acceptClaims?.length
          ? { permissionClaims: opts.acceptClaims.map((c) => acceptedClaim(version, c.group, c.resource)) }
          : {}),
      },
    };
    const created = await this.client.send('POST', base, binding);
    if (opts.waitReady === false) return created;
    let last: Record<string, unknown> | undefined;
    await this.until(
      `APIBinding ${name} in ${workspace.path} to become Ready`,
      async () => {
        last = await this.client.getOrUndefined(`${base}/${name}`);
        return objs(last, 'status', 'conditions').some((c) => c['type'] === 'Ready' && c['status'] === 'True');
      },
      opts.timeoutMs ?? 10_000,
    );
    return last!;
  }

  async unbind(workspace: Workspace, name: string): Promise<void> {
    await this.client.send('DELETE', `/clusters/${workspace.name}/apis/${V1A1}/apibindings/${name}`);
  }

  stopShard(shard: string): void {
    this.knownShard(shard).abort();
  }

  startShard(shard: string): void {
    if (!this.knownShard(shard).signal.aborted) return;
    this.shardLife.set(shard, new AbortController());
    this.server.compact();
  }

  private knownShard(shard: string): AbortController {
    const life = this.shardLife.get(shard);
    if (!life) throw new KcpFixtureError(`unknown shard ${JSON.stringify(shard)}; shards are ${this.shards.join(', ')}`);
    return life;
  }

  endpointUrl(shard: string, exportWorkspace: Workspace, exportName: string): string {
    return this.endpointUrlOf(shard, exportWorkspace.name, exportName);
  }

  async endpointUrls(exportWorkspace: Workspace, sliceName: string): Promise<string[]> {
    const slice = await this.client.getOrUndefined(`/clusters/${exportWorkspace.name}/apis/${V1A1}/apiexportendpointslices/${sliceName}`);
    return objs(slice, 'status', 'endpoints').flatMap((e) => str(e, 'url') ?? []);
  }

  private endpointUrlOf(shard: string, exportCluster: string, exportName: string): string {
    return `${this.server.url}/shards/${shard}/services/apiexport/${exportCluster}/${encodeURIComponent(exportName)}`;
  }

  private async until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.closed) throw new KcpFixtureError(`the fake kcp was closed while waiting for ${what}`);
      if (await check()) return;
      if (Date.now() > deadline) {
        const cause = this.controller.lastError;
        throw new KcpTimeoutError(
          `timed out after ${timeoutMs} ms waiting for ${what}${cause ? ` (controller: ${cause instanceof Error ? cause.message : JSON.stringify(cause)})` : ''}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.controller.close();
    this.client.close();
    await this.server.close();
  }
}
