/**
 * A small in-process stand-in for kcp's API binding, export and endpoint-slice controllers. It watches the apis.kcp.io
 * objects of every workspace and, on each change, reconciles them all: an APIBinding whose export and schemas exist
 * gets the exported resources served in its workspace (a CRD per schema) and Ready=True; otherwise Ready=False. Every
 * binding carries kcp's finalizer, and a deleted one first has its bound objects deleted (binding-deletion.ts). Every
 * APIExport gets an APIExportEndpointSlice of its name, and every slice lists one virtual-workspace URL per shard
 * hosting a bound workspace (none until the first binding, as in kcp). Workspace types and initialization are in
 * workspace-types.ts. What it learns (exported and claimed resources, bound clusters, pending initializers) feeds the
 * virtual workspace mounts.
 */
import type { AdminClient } from '../admin-client.js';
import { ensureFinalizer, finishDeletion, isDeleting } from './binding-deletion.js';
import type { ResolvedExport } from './binding-status.js';
import { bindingStatus, exportRef, sameStatus, sliceStatus } from './binding-status.js';
import { schemaResource, serveSchemas } from './bound-schemas.js';
import { claimedCollections, labelClaimedObjects } from './claim-labels.js';
import { KCP_APIS_GROUP, KCP_PATH_ANNOTATION } from './crds.js';
import { KcpRequestError } from './errors.js';
import type { Json } from './json.js';
import { at, clusterOf, nameOf, objs, statusUpdate, str, strs } from './json.js';
import { acceptedClaims, exportClaims } from './permission-claims.js';
import { LOGICAL_CLUSTERS, WORKSPACE_TYPES, reconcileWorkspaceTypes } from './workspace-types.js';
import type { WorkspaceDirectory } from './workspaces.js';

const V1A1 = `${KCP_APIS_GROUP}/v1alpha1`;

/** What the virtual workspace of one APIExport serves. */
export interface ExportView {
  /** `group/resource` of every exported resource. */
  readonly resources: ReadonlySet<string>;
  /** Logical clusters with an APIBinding to this export (Ready or not, until the binding is gone). */
  readonly boundClusters: ReadonlySet<string>;
  /** `group/resource` of every claimed resource → the logical clusters whose binding accepted that claim. */
  readonly claims: ReadonlyMap<string, ReadonlySet<string>>;
}

export const exportKey = (cluster: string, name: string): string => `${cluster}/${name}`;

interface ExportEntry extends ResolvedExport {
  readonly obj: Json;
  readonly claims: ReadonlySet<string>;
}

export class KcpController {
  /** Export key → what its virtual workspace serves; replaced wholesale by each reconcile. */
  views = new Map<string, ExportView>();
  /** Logical cluster → the initializers it still waits for (what initializingworkspaces virtual workspaces show). */
  initializers = new Map<string, Set<string>>();
  /** The last reconcile error, kept until a reconcile succeeds (for tests and debugging). */
  lastError: unknown;
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;
  private dirty = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private laterTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly watches: Promise<void>[] = [];
  private readonly watched = new Set<string>();

  constructor(
    private readonly client: AdminClient,
    private readonly workspaces: WorkspaceDirectory,
    private readonly endpointUrl: (shard: string, exportCluster: string, exportName: string) => string,
    private readonly shardOrder: readonly string[],
    private readonly initializingUrl: (shard: string, initializer: string) => string,
  ) {}

  start(): void {
    const watched = ['apibindings', 'apiexports', 'apiresourceschemas', 'apiexportendpointslices'].map((r) => `${V1A1}/${r}`);
    // CRDs too: deleting one that conflicted with an export's resource lets its bindings become Ready.
    for (const resource of [...watched, 'apiextensions.k8s.io/v1/customresourcedefinitions']) this.watch(`/clusters/*/apis/${resource}`);
    for (const path of [WORKSPACE_TYPES, LOGICAL_CLUSTERS]) this.watch(`/clusters/*${path}`);
    this.kick();
  }

  /** Reconciles on every change of a wildcard collection (once per path; claimed resources are added as they appear). */
  private watch(path: string): void {
    if (this.watched.has(path) || this.stop.signal.aborted) return;
    this.watched.add(path);
    this.watches.push(this.watchLoop(`${path}?watch=true&timeoutSeconds=3600`));
  }

  /** Asks for a reconcile of everything; concurrent asks coalesce into one more pass. */
  kick(): void {
    if (this.stop.signal.aborted) return;
    this.dirty = true;
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  async close(): Promise<void> {
    this.stop.abort();
    clearTimeout(this.retryTimer);
    clearTimeout(this.laterTimer);
    await Promise.allSettled([this.running, ...this.watches]);
  }

  private async watchLoop(path: string): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      try {
        await this.client.watch(path, () => this.kick(), signal);
      } catch {
        // The server restarted or refused: wait a little and watch again (the initial events re-kick a reconcile).
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 100);
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
    }
  }

  private async drain(): Promise<void> {
    while (this.dirty && !this.stop.signal.aborted) {
      this.dirty = false;
      try {
        await this.reconcileAll();
        this.failures = 0;
        this.lastError = undefined;
      } catch (err) {
        if (this.stop.signal.aborted) return;
        this.lastError = err;
        this.failures++;
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.kick(), Math.min(1000, 25 * 2 ** this.failures));
        return;
      }
    }
  }

  private async list(resource: string): Promise<Json[]> {
    return objs(await this.client.send('GET', `/clusters/*/apis/${V1A1}/${resource}`), 'items');
  }

  /** The logical cluster an export reference points at (a workspace path or a logical cluster name). */
  private exportCluster(path: string | undefined, fallback: string): string {
    return path ? (this.workspaces.byPathOrName(path)?.name ?? path) : fallback;
  }

  private async reconcileAll(): Promise<void> {
    this.initializers = await reconcileWorkspaceTypes(this.client, (initializer) =>
      this.shardOrder.map((shard) => this.initializingUrl(shard, initializer)),
    );
    const [exports, schemas, bindings, slices] = await Promise.all([
      this.list('apiexports'),
      this.list('apiresourceschemas'),
      this.list('apibindings'),
      this.list('apiexportendpointslices'),
    ]);

    // Exports, the schemas they name (v1alpha1 latestResourceSchemas, v1alpha2 resources[].schema) and their claims.
    const exported = new Map<string, ExportEntry>();
    for (const e of exports) {
      const cluster = clusterOf(e);
      const names =
        at(e, 'spec', 'latestResourceSchemas') !== undefined
          ? strs(e, 'spec', 'latestResourceSchemas')
          : objs(e, 'spec', 'resources').map((r) => str(r, 'schema') ?? '');
      const found = names.map((n) => schemas.find((s) => clusterOf(s) === cluster && nameOf(s) === n));
      exported.set(exportKey(cluster, nameOf(e)), {
        schemas: found.filter((s): s is Json => s !== undefined),
        valid: found.every(Boolean),
        obj: e,
        claims: exportClaims(e),
      });
    }

    const bound = new Map<string, Set<string>>();
    const claimed = new Map<string, Map<string, Set<string>>>();
    const ready = new Map<string, Set<string>>();
    const decisions: { binding: Json; cluster: string; key: string; export: ExportEntry | undefined }[] = [];
    for (const b of bindings) {
      const cluster = clusterOf(b);
      const ref = exportRef(b, 'spec', 'reference', 'export');
      const key = exportKey(this.exportCluster(ref.path, cluster), ref.name);
      const exp = exported.get(key);
      addTo(bound, key, cluster);
      const byResource = claimed.get(key) ?? claimed.set(key, new Map()).get(key)!;
      // A binding being deleted no longer grants its claims: their labels go before its finalizer does.
      if (!isDeleting(b)) for (const gr of acceptedClaims(b, exp?.claims ?? new Set())) addTo(byResource, gr, cluster);
      decisions.push({ binding: b, cluster, key, export: exp });
    }
    // Publish membership before writing statuses, so the status updates reach virtual-workspace watches. Claim labels
    // change while the views show both the old and the new claims, so their ADDED and DELETED events get through.
    const views = new Map<string, ExportView>();
    for (const [key, e] of exported) {
      const resources = new Set(e.schemas.map(schemaResource));
      const claims = new Map([...e.claims].map((gr) => [gr, claimed.get(key)?.get(gr) ?? new Set<string>()]));
      views.set(key, { resources, boundClusters: bound.get(key) ?? new Set(), claims });
    }
    this.views = withPreviousClaims(views, this.views);
    const claims = new Map([...exported].map(([key, e]) => [key, e.claims]));
    for (const path of await claimedCollections(
      this.client,
      [...claims.values()].flatMap((c) => [...c]),
    ))
      this.watch(path);
    await labelClaimedObjects(this.client, claims, claimed);
    this.views = views;

    for (const d of decisions) {
      const path = `/clusters/${d.cluster}/apis/${V1A1}/apibindings/${nameOf(d.binding)}`;
      if (isDeleting(d.binding)) {
        if (!(await this.tolerateRace(() => finishDeletion(this.client, d.cluster, path, d.binding)))) this.later();
        continue;
      }
      if (!(await this.tolerateRace(() => ensureFinalizer(this.client, path, d.binding)))) continue;
      let conflicts: string[] = [];
      if (d.export?.valid) {
        conflicts = await serveSchemas(this.client, d.cluster, d.export.schemas);
        if (conflicts.length === 0) addTo(ready, d.key, d.cluster);
      }
      await this.writeBindingStatus(path, d.binding, d.cluster, d.key, d.export, conflicts);
    }
    await this.ensureSlices(exported, slices, ready);
  }

  private async writeBindingStatus(
    path: string,
    binding: Json,
    cluster: string,
    key: string,
    exp: ExportEntry | undefined,
    conflicts: string[],
  ): Promise<void> {
    const wsPath = this.workspaces.byPathOrName(cluster)?.path;
    if (wsPath && str(binding, 'metadata', 'annotations', KCP_PATH_ANNOTATION) !== wsPath) {
      await this.client.send(
        'PATCH',
        path,
        { metadata: { annotations: { [KCP_PATH_ANNOTATION]: wsPath } } },
        'application/merge-patch+json',
      );
    }
    const previous = binding['status'];
    const status = bindingStatus(key, exp, previous, conflicts);
    if (sameStatus(previous, status)) return;
    await this.putStatus(path, binding, status);
  }

  private async ensureSlices(exported: Map<string, ExportEntry>, slices: Json[], ready: Map<string, Set<string>>): Promise<void> {
    for (const [key, e] of exported) {
      const cluster = key.slice(0, key.indexOf('/'));
      const name = nameOf(e.obj);
      if (slices.some((s) => clusterOf(s) === cluster && nameOf(s) === name)) continue;
      const exportPath = this.workspaces.byPathOrName(cluster)?.path ?? cluster;
      const slice = { apiVersion: V1A1, kind: 'APIExportEndpointSlice', metadata: { name }, spec: { export: { path: exportPath, name } } };
      try {
        await this.client.send('POST', `/clusters/${cluster}/apis/${V1A1}/apiexportendpointslices`, slice);
      } catch (err) {
        if (!(err instanceof KcpRequestError && err.status === 409)) throw err;
      }
      this.dirty = true; // its status is written on the next pass, from the stored object
    }
    for (const s of slices) {
      const cluster = clusterOf(s);
      const ref = exportRef(s, 'spec', 'export');
      const exportCluster = this.exportCluster(ref.path, cluster);
      const exportName = ref.name;
      const shards = new Set([...(ready.get(exportKey(exportCluster, exportName)) ?? [])].map((c) => this.workspaces.shardOf(c)));
      const urls = this.shardOrder.filter((sh) => shards.has(sh)).map((sh) => this.endpointUrl(sh, exportCluster, exportName));
      const previous = s['status'];
      const status = sliceStatus(urls, exported.has(exportKey(exportCluster, exportName)), previous);
      if (sameStatus(previous, status)) continue;
      await this.putStatus(`/clusters/${cluster}/apis/${V1A1}/apiexportendpointslices/${nameOf(s)}`, s, status);
    }
  }

  /** Writes a status with the listed resourceVersion; a conflict or a vanished object means a newer event is on its way. */
  private async putStatus(path: string, listed: Json, status: Json): Promise<void> {
    await this.tolerateRace(() => this.client.send('PUT', `${path}/status`, statusUpdate(listed, status)));
  }

  /**
   * Runs a write made from a listed object; a conflict or a vanished object means a newer event is on its way, so it
   * is not an error. Resolves to the write's result, or false when it lost such a race.
   */
  private async tolerateRace<T>(write: () => Promise<T>): Promise<T | false> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof KcpRequestError && (err.status === 409 || err.status === 404)) {
        this.dirty = true;
        return false;
      }
      throw err;
    }
  }

  /** Reconciles again a little later: something waits on what the fake does not watch (objects' finalizers). */
  private later(): void {
    if (this.stop.signal.aborted) return;
    clearTimeout(this.laterTimer);
    this.laterTimer = setTimeout(() => this.kick(), 100);
  }
}

/** `next`, except that each export's claims also show the clusters `previous` showed. */
function withPreviousClaims(next: Map<string, ExportView>, previous: Map<string, ExportView>): Map<string, ExportView> {
  const out = new Map<string, ExportView>();
  for (const [key, view] of next) {
    const before = previous.get(key)?.claims;
    const claims = new Map([...view.claims].map(([gr, clusters]) => [gr, new Set([...clusters, ...(before?.get(gr) ?? [])])]));
    out.set(key, { ...view, claims });
  }
  return out;
}

function addTo<K>(map: Map<K, Set<string>>, key: K, value: string): void {
  (map.get(key) ?? map.set(key, new Set()).get(key)!).add(value);
}
