/**
 * A small in-process stand-in for kcp's API binding, export and endpoint-slice controllers. It watches the apis.kcp.io
 * objects of every workspace and, on each change, reconciles them all: an APIBinding whose export and schemas exist
 * gets the exported resources served in its workspace (a CRD per schema) and Ready=True; otherwise Ready=False. Every
 * APIExport gets an APIExportEndpointSlice of its name, and every slice lists one virtual-workspace URL per shard
 * hosting a bound workspace (none until the first binding, as in kcp). What it learns feeds the virtual workspace mounts.
 */
import type { AdminClient } from '../admin-client.js';
import { KCP_APIS_GROUP, KCP_PATH_ANNOTATION } from './crds.js';
import { KcpRequestError } from './errors.js';
import type { WorkspaceDirectory } from './workspaces.js';

const CLUSTER_ANNOTATION = 'kcp.io/cluster';
const V1A1 = `${KCP_APIS_GROUP}/v1alpha1`;
type Obj = Record<string, any>;

/** What the virtual workspace of one APIExport serves. */
export interface ExportView {
  /** `group/resource` of every exported resource. */
  readonly resources: ReadonlySet<string>;
  /** Logical clusters with an APIBinding to this export (Ready or not). */
  readonly boundClusters: ReadonlySet<string>;
}

export const exportKey = (cluster: string, name: string): string => `${cluster}/${name}`;
const clusterOf = (o: Obj): string => (o['metadata']?.['annotations']?.[CLUSTER_ANNOTATION] as string | undefined) ?? '';

/** Conditions compared without their timestamps, so a converged object is never rewritten. */
function sameStatus(a: unknown, b: unknown): boolean {
  const strip = (s: any): unknown =>
    s && typeof s === 'object'
      ? { ...s, conditions: (s.conditions as Obj[] | undefined)?.map(({ lastTransitionTime: _t, ...c }) => c) }
      : s;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** Keeps each condition's lastTransitionTime while its status stays the same. */
function withTransitionTimes(conditions: Obj[], previous: Obj[] | undefined): Obj[] {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return conditions.map((c) => {
    const prev = previous?.find((p) => p['type'] === c['type']);
    return { ...c, lastTransitionTime: prev && prev['status'] === c['status'] ? prev['lastTransitionTime'] : now };
  });
}

function crdFromSchema(schema: Obj): Obj {
  const spec = schema['spec'] as Obj;
  const names = spec['names'] as Obj;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names['plural']}.${spec['group']}` },
    spec: { group: spec['group'], names, scope: spec['scope'] ?? 'Namespaced', versions: spec['versions'] },
  };
}

export class KcpController {
  /** Export key → what its virtual workspace serves; replaced wholesale by each reconcile. */
  views = new Map<string, ExportView>();
  /** The last reconcile error, kept until a reconcile succeeds (for tests and debugging). */
  lastError: unknown;
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;
  private dirty = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly watches: Promise<void>[] = [];

  constructor(
    private readonly client: AdminClient,
    private readonly workspaces: WorkspaceDirectory,
    private readonly endpointUrl: (shard: string, exportCluster: string, exportName: string) => string,
    private readonly shardOrder: readonly string[],
  ) {}

  start(): void {
    for (const resource of ['apibindings', 'apiexports', 'apiresourceschemas', 'apiexportendpointslices']) {
      this.watches.push(this.watchLoop(`/clusters/*/apis/${V1A1}/${resource}?watch=true&timeoutSeconds=3600`));
    }
    this.kick();
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

  private async list(resource: string): Promise<Obj[]> {
    return ((await this.client.send<Obj>('GET', `/clusters/*/apis/${V1A1}/${resource}`))['items'] as Obj[]) ?? [];
  }

  private async reconcileAll(): Promise<void> {
    const [exports, schemas, bindings, slices] = await Promise.all([
      this.list('apiexports'),
      this.list('apiresourceschemas'),
      this.list('apibindings'),
      this.list('apiexportendpointslices'),
    ]);

    // Exports and the schemas they name (v1alpha1 latestResourceSchemas, v1alpha2 resources[].schema).
    const exported = new Map<string, { schemas: Obj[]; valid: boolean; obj: Obj }>();
    for (const e of exports) {
      const cluster = clusterOf(e);
      const spec = (e['spec'] ?? {}) as Obj;
      const names: string[] =
        (spec['latestResourceSchemas'] as string[] | undefined) ??
        ((spec['resources'] as Obj[] | undefined) ?? []).map((r) => String(r['schema']));
      const found = names.map((n) => schemas.find((s) => clusterOf(s) === cluster && s['metadata']['name'] === n));
      exported.set(exportKey(cluster, e['metadata']['name']), {
        schemas: found.filter((s): s is Obj => s !== undefined),
        valid: found.every(Boolean),
        obj: e,
      });
    }

    const bound = new Map<string, Set<string>>();
    const ready = new Map<string, Set<string>>();
    const decisions: { binding: Obj; cluster: string; key: string; export: { schemas: Obj[]; valid: boolean } | undefined }[] = [];
    for (const b of bindings) {
      const cluster = clusterOf(b);
      const ref = (b['spec']?.['reference']?.['export'] ?? {}) as Obj;
      const exportCluster = ref['path'] ? (this.workspaces.byPathOrName(String(ref['path']))?.name ?? String(ref['path'])) : cluster;
      const key = exportKey(exportCluster, String(ref['name'] ?? ''));
      (bound.get(key) ?? bound.set(key, new Set()).get(key)!).add(cluster);
      decisions.push({ binding: b, cluster, key, export: exported.get(key) });
    }
    // Publish membership before writing statuses, so the status updates reach virtual-workspace watches.
    const views = new Map<string, ExportView>();
    for (const [key, e] of exported) {
      const resources = new Set(e.schemas.map((s) => `${s['spec']['group']}/${s['spec']['names']['plural']}`));
      views.set(key, { resources, boundClusters: bound.get(key) ?? new Set() });
    }
    this.views = views;

    for (const d of decisions) {
      if (d.export?.valid) {
        await this.serveSchemas(d.cluster, d.export.schemas);
        (ready.get(d.key) ?? ready.set(d.key, new Set()).get(d.key)!).add(d.cluster);
      }
      await this.writeBindingStatus(d.binding, d.cluster, d.key, d.export);
    }
    await this.ensureSlices(exported, slices, ready);
  }

  /** Creates the CRD of each schema in the binding's workspace and waits until it is served. */
  private async serveSchemas(cluster: string, schemas: Obj[]): Promise<void> {
    for (const schema of schemas) {
      const crd = crdFromSchema(schema);
      const base = `/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
      if (!(await this.client.getOrUndefined(`${base}/${crd['metadata'].name}`))) {
        try {
          await this.client.send('POST', base, crd);
        } catch (err) {
          if (!(err instanceof KcpRequestError && err.status === 409)) throw err;
        }
      }
      const version = (crd['spec'].versions as Obj[])[0]?.['name'];
      for (let i = 0; i < 200; i++) {
        if (await this.client.getOrUndefined(`/clusters/${cluster}/apis/${crd['spec'].group}/${version}`)) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }

  private async writeBindingStatus(
    binding: Obj,
    cluster: string,
    key: string,
    exp: { schemas: Obj[]; valid: boolean } | undefined,
  ): Promise<void> {
    const meta = binding['metadata'] as Obj;
    const path = `/clusters/${cluster}/apis/${V1A1}/apibindings/${meta['name']}`;
    const wsPath = this.workspaces.byPathOrName(cluster)?.path;
    if (wsPath && meta['annotations']?.[KCP_PATH_ANNOTATION] !== wsPath) {
      await this.client.send(
        'PATCH',
        path,
        { metadata: { annotations: { [KCP_PATH_ANNOTATION]: wsPath } } },
        'application/merge-patch+json',
      );
    }
    const previous = binding['status'] as Obj | undefined;
    const exportCluster = key.slice(0, key.indexOf('/'));
    let status: Obj;
    if (exp?.valid) {
      status = {
        apiExportClusterName: exportCluster,
        phase: 'Bound',
        boundResources: exp.schemas.map((s) => ({
          group: s['spec']['group'],
          resource: s['spec']['names']['plural'],
          schema: { name: s['metadata']['name'], UID: s['metadata']['uid'] },
          storageVersions: ((s['spec']['versions'] as Obj[]) ?? []).filter((v) => v['storage']).map((v) => v['name']),
        })),
        conditions: withTransitionTimes(
          [
            { type: 'APIExportValid', status: 'True' },
            { type: 'InitialBindingCompleted', status: 'True' },
            { type: 'Ready', status: 'True' },
          ],
          previous?.['conditions'] as Obj[] | undefined,
        ),
      };
    } else {
      const reason = exp ? 'APIResourceSchemaNotFound' : 'APIExportNotFound';
      status = {
        phase: 'Binding',
        conditions: withTransitionTimes(
          [
            {
              type: 'APIExportValid',
              status: 'False',
              reason,
              message: `APIExport ${key} ${exp ? 'names a schema that does not exist' : 'does not exist'}`,
            },
            { type: 'Ready', status: 'False', reason },
          ],
          previous?.['conditions'] as Obj[] | undefined,
        ),
      };
    }
    if (sameStatus(previous, status)) return;
    await this.putStatus(path, binding, status);
  }

  private async ensureSlices(exported: Map<string, { obj: Obj }>, slices: Obj[], ready: Map<string, Set<string>>): Promise<void> {
    for (const [key, e] of exported) {
      const cluster = key.slice(0, key.indexOf('/'));
      const name = String(e.obj['metadata']['name']);
      if (slices.some((s) => clusterOf(s) === cluster && s['metadata']['name'] === name)) continue;
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
      const ref = (s['spec']?.['export'] ?? {}) as Obj;
      const exportCluster = ref['path'] ? (this.workspaces.byPathOrName(String(ref['path']))?.name ?? String(ref['path'])) : cluster;
      const exportName = String(ref['name'] ?? '');
      const shards = new Set([...(ready.get(exportKey(exportCluster, exportName)) ?? [])].map((c) => this.workspaces.shardOf(c)));
      const endpoints = this.shardOrder
        .filter((sh) => shards.has(sh))
        .map((sh) => ({ url: this.endpointUrl(sh, exportCluster, exportName) }));
      const exists = exported.has(exportKey(exportCluster, exportName));
      const previous = s['status'] as Obj | undefined;
      const status = {
        endpoints,
        conditions: withTransitionTimes(
          [
            exists
              ? { type: 'EndpointURLsReady', status: 'True' }
              : { type: 'EndpointURLsReady', status: 'False', reason: 'APIExportNotFound' },
          ],
          previous?.['conditions'] as Obj[] | undefined,
        ),
      };
      if (sameStatus(previous, status)) continue;
      await this.putStatus(`/clusters/${cluster}/apis/${V1A1}/apiexportendpointslices/${s['metadata']['name']}`, s, status);
    }
  }

  /** Writes a status with the listed resourceVersion; a conflict or a vanished object means a newer event is on its way. */
  private async putStatus(path: string, obj: Obj, status: Obj): Promise<void> {
    const { annotations, ...meta } = obj['metadata'] as Obj;
    const { [CLUSTER_ANNOTATION]: _c, ...rest } = (annotations ?? {}) as Obj;
    const body = { ...obj, metadata: { ...meta, ...(Object.keys(rest).length ? { annotations: rest } : {}) }, status };
    try {
      await this.client.send('PUT', `${path}/status`, body);
    } catch (err) {
      if (err instanceof KcpRequestError && (err.status === 409 || err.status === 404)) this.dirty = true;
      else throw err;
    }
  }
}
