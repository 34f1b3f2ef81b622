/**
 * The kind provider: polls the kind CLI for clusters, engages each one (named after the kind cluster), re-engages it
 * when its kubeconfig changes (a cluster recreated under the same name gets new certificates and a new port), and
 * disengages clusters that are gone. A failing CLI or one bad cluster never disturbs the clusters already engaged,
 * and clusters come up concurrently, so one unreachable cluster never delays the others.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ClusterSet, ProviderAlreadyStartedError, connectionFingerprint, loadUntrustedKubeconfig, newCluster, silentLogger,
  sleep,
} from '@multicluster-runtime/core';
import type {
  Aware, Cluster, ClusterName, IndexerFunc, KubeconfigPolicy, Logger, ObjectKind, ProviderRunnable,
} from '@multicluster-runtime/core';
import { KindCli, type KindCliOptions } from './kind-cli.js';

export interface KindProviderOptions extends KindCliOptions {
  /** Only clusters whose name starts with this prefix. */
  namePrefix?: string;
  /** How often to ask kind for clusters. Default 2 s. */
  pollIntervalMs?: number;
  /** How long a new cluster's cache may take to sync before it is given up (and retried next poll). Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** What the kubeconfigs kind prints may do. kind's own need nothing beyond the default. */
  policy?: KubeconfigPolicy;
  /** Builds a Cluster from a kubeconfig. Default: core's newCluster. */
  clusterFactory?: (name: ClusterName, config: KubeConfig) => Cluster;
  logger?: Logger;
}

/** What the provider knows about one kind cluster. */
export interface KindClusterStatus {
  state: 'starting' | 'engaged' | 'failed';
  /** Why the last attempt failed (no credentials in it). */
  error?: string;
}

export interface KindProviderStatus {
  /** The last CLI failure, cleared by the next successful listing. */
  lastError?: string;
  /** Completed polls. */
  polls: number;
  clusters: Record<ClusterName, KindClusterStatus>;
}

interface Tracked {
  fingerprint: string;
  status: KindClusterStatus;
}

export class KindProvider implements ProviderRunnable {
  private readonly cli: KindCli;
  private readonly clusters: ClusterSet;
  private readonly tracked = new Map<ClusterName, Tracked>();
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private lastError: string | undefined;
  private polls = 0;
  private started = false;

  constructor(private readonly options: KindProviderOptions = {}) {
    this.cli = new KindCli(options);
    this.log = (options.logger ?? silentLogger).with({ provider: 'kind' });
    this.pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.clusters = new ClusterSet({
      logger: this.log,
      owner: 'kind',
      ...(options.waitCacheTimeoutMs !== undefined ? { waitCacheTimeoutMs: options.waitCacheTimeoutMs } : {}),
    });
  }

  get(name: ClusterName): Promise<Cluster> {
    return this.clusters.get(name);
  }

  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.clusters.indexField(kind, field, extract);
  }

  /** A snapshot of what the provider sees; useful for probes and tests. */
  status(): KindProviderStatus {
    const clusters: Record<ClusterName, KindClusterStatus> = {};
    for (const [name, t] of this.tracked) clusters[name] = { ...t.status };
    return { ...(this.lastError !== undefined ? { lastError: this.lastError } : {}), polls: this.polls, clusters };
  }

  async start(signal: AbortSignal, aware: Aware): Promise<void> {
    if (this.started) throw new ProviderAlreadyStartedError('KindProvider');
    this.started = true;
    try {
      while (!signal.aborted) {
        await this.poll(signal, aware);
        this.polls++;
        await sleep(this.pollIntervalMs, signal);
      }
    } finally {
      await this.clusters.removeAll();
      this.tracked.clear();
    }
  }

  private async poll(signal: AbortSignal, aware: Aware): Promise<void> {
    let names: string[];
    try {
      names = (await this.cli.listClusters(signal)).filter((n) => n.startsWith(this.options.namePrefix ?? ''));
      this.lastError = undefined;
    } catch (err) {
      if (signal.aborted) return;
      // Keep what is engaged: a broken CLI says nothing about whether the clusters still exist.
      this.lastError = (err as Error).message;
      this.log.warn('listing kind clusters failed; retrying next poll', { error: this.lastError });
      return;
    }
    const present = new Set(names);
    for (const name of [...this.tracked.keys()]) {
      if (present.has(name)) continue;
      this.log.info('kind cluster is gone; disengaging', { cluster: name });
      this.tracked.delete(name);
      void this.clusters.remove(name);
    }
    await Promise.all(names.map((name) => this.refresh(name, signal, aware)));
  }

  /** Reads one cluster's kubeconfig and starts an engagement if it is new or changed; does not wait for it. */
  private async refresh(name: ClusterName, signal: AbortSignal, aware: Aware): Promise<void> {
    const current = this.tracked.get(name);
    let config: KubeConfig;
    let fingerprint: string;
    try {
      config = loadUntrustedKubeconfig(await this.cli.getKubeconfig(name, signal), this.options.policy);
      fingerprint = connectionFingerprint(config);
    } catch (err) {
      if (signal.aborted) return;
      const error = (err as Error).message;
      this.log.warn('cannot use kind cluster; retrying next poll', { cluster: name, error });
      // A cluster that is engaged keeps running on its last good kubeconfig.
      if (current) current.status.error = error;
      else this.tracked.set(name, { fingerprint: '', status: { state: 'failed', error } });
      return;
    }
    if (current && current.fingerprint === fingerprint && current.status.state !== 'failed') return;

    const tracked: Tracked = { fingerprint, status: { state: 'starting' } };
    this.tracked.set(name, tracked);
    const cluster = (this.options.clusterFactory ?? defaultFactory(this.log))(name, config);
    // Engagement runs in the background: a cluster whose cache cannot sync must not hold up the poll loop.
    this.clusters.addOrReplace(name, cluster, aware, { signal }).then(
      () => {
        if (this.tracked.get(name) === tracked) tracked.status = { state: 'engaged' };
      },
      (err: Error) => {
        if (this.tracked.get(name) !== tracked) return;
        tracked.status = { state: 'failed', error: err.message };
        this.log.warn('engaging kind cluster failed; retrying next poll', { cluster: name, error: err.message });
      },
    );
  }
}

function defaultFactory(log: Logger): (name: ClusterName, config: KubeConfig) => Cluster {
  return (name, config) => newCluster(config, { name, logger: log.with({ cluster: name }) });
}
