/**
 * Test support for manager integration tests: a provider built on ClusterSet (as real providers are) whose clusters
 * the test adds and removes by kubeconfig, and the two reconcilers of the upstream docs — a uniform one (label every
 * ConfigMap in its own cluster) and a multi-cluster-aware one (copy labelled ConfigMaps to a target cluster).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { IndexerFunc } from '../cache/types.js';
import { isAlreadyExists, isNotFound } from '../client/errors.js';
import { newCluster } from '../cluster/cluster.js';
import type { Cluster } from '../cluster/types.js';
import { silentLogger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware, ProviderContext, ProviderRunnable } from '../multicluster/types.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import type { ReconcileContext, ReconcileFunc, Request } from '../reconcile/types.js';
import { ClusterSet } from '../providers/clusters/cluster-set.js';
import { whenAborted } from '../signal/wait.js';
import type { Manager } from './types.js';

export const configMapKind: ObjectKind = { apiVersion: 'v1', kind: 'ConfigMap' };

export class TestFleetProvider implements ProviderRunnable {
  readonly set = new ClusterSet({ waitCacheTimeoutMs: 10_000 });
  private aware: Aware | undefined;
  private readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor() {
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
  }

  async start(signal: AbortSignal, { aware }: ProviderContext): Promise<void> {
    this.aware = aware;
    this.markReady();
    await whenAborted(signal);
    await this.set.removeAll();
  }

  /** Builds a cluster from `config` and engages it under `name` (waits for the manager to start the provider). */
  async add(name: ClusterName, config: KubeConfig): Promise<Cluster> {
    await this.ready;
    const cluster = newCluster(config, { name, logger: silentLogger });
    await this.set.add(name, cluster, this.aware);
    return cluster;
  }

  remove(name: ClusterName): Promise<void> {
    return this.set.remove(name);
  }

  get(name: ClusterName): Promise<Cluster> {
    return this.set.get(name);
  }

  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.set.indexField(kind, field, extract);
  }
}

/** Counts reconciles per `cluster/namespace/name`. */
export class ReconcileLog {
  readonly counts = new Map<string, number>();
  record(req: Request): void {
    const key = `${req.clusterName}/${req.namespace}/${req.name}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  count(cluster: ClusterName, name: string, namespace = 'default'): number {
    return this.counts.get(`${cluster}/${namespace}/${name}`) ?? 0;
  }
  total(cluster: ClusterName): number {
    let n = 0;
    for (const [k, v] of this.counts) if (k.startsWith(`${cluster}/`)) n += v;
    return n;
  }
}

/** Uniform: every ConfigMap gets the label `reconciled=true` in its own cluster. */
export function uniformReconciler(mgr: Manager, log: ReconcileLog): ReconcileFunc {
  return async (req: Request, ctx: ReconcileContext) => {
    log.record(req);
    const cluster = await mgr.getCluster(req.clusterName, ctx.signal);
    let cm: KubeObject;
    try {
      cm = await cluster.client.get(configMapKind, req, { signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (cm.metadata.labels?.['reconciled'] === 'true') return;
    await cluster.client.patch(
      configMapKind,
      req,
      { type: 'merge', body: { metadata: { labels: { reconciled: 'true' } } } },
      { signal: ctx.signal },
    );
  };
}

/** Multi-cluster-aware: a ConfigMap labelled `sync=true` is copied into `target` as `copy-<cluster>-<name>`. */
export function syncReconciler(mgr: Manager, target: ClusterName, log: ReconcileLog): ReconcileFunc {
  return async (req: Request, ctx: ReconcileContext) => {
    log.record(req);
    const source = await mgr.getCluster(req.clusterName, ctx.signal);
    const dest = await mgr.getCluster(target, ctx.signal);
    let cm: KubeObject;
    try {
      cm = await source.client.get(configMapKind, req, { signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (cm.metadata.labels?.['sync'] !== 'true') return;
    const copy = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: req.namespace, name: copyName(req.clusterName, req.name) },
      data: (cm['data'] as Record<string, string> | undefined) ?? {},
    };
    try {
      await dest.client.create(copy, { signal: ctx.signal });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const current = await dest.client.get(configMapKind, copy.metadata, { signal: ctx.signal });
      await dest.client.update({ ...current, data: copy.data }, { signal: ctx.signal });
    }
  };
}

export function copyName(cluster: ClusterName, name: string): string {
  return `copy-${cluster === '' ? 'local' : cluster}-${name}`;
}

export function configMap(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, labels }, data };
}
