/**
 * The multi-cluster manager: runs the local cluster "", every runnable (controllers, registries) and the provider,
 * engages Aware runnables with each cluster the provider brings, serves metrics and health probes, and shuts it all
 * down within a deadline. Start order (as controller-runtime, plus the provider): probe servers, the local cluster
 * and its cache sync, runnables that need no leader election, then — once elected — the rest, and the provider last.
 * With leader election the provider runs on every replica unless it sets `needLeaderElection: true`: standbys then
 * answer getCluster (upstream's leader-only provider is Milo's bug #732) and take over with clusters already engaged;
 * their controllers record the engagements and start watching only once elected.
 * A runnable that fails stops the manager with its error.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { FieldIndexer, IndexerFunc } from '../cache/types.js';
import { newCluster } from '../cluster/cluster.js';
import { directClient } from '../cluster/direct-client.js';
import type { Cluster } from '../cluster/types.js';
import { formatHostPort, parseBindAddress, type BindAddress } from '../healthz/bind-address.js';
import { HealthChecks, type HealthCheck } from '../healthz/checks.js';
import { ProbeServer, type MetricsSource, type ProbeRoutes } from '../healthz/probe-server.js';
import { LeaderElectionLostError } from '../leaderelection/errors.js';
import { LeaseElector, type Leadership } from '../leaderelection/lease-elector.js';
import { createLogger, type Logger } from '../log/logger.js';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import type { MetricsRecorder } from '../metrics/types.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import { LOCAL_CLUSTER, type ClusterName } from '../fleet/cluster-name.js';
import { isProviderRunnable, type Aware, type Provider, type ProviderContext } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';
import { ShardCoordinator } from '../sharding/coordinator.js';
import { ClusterNotOwnedError } from '../sharding/errors.js';
import { resolveSharding } from '../sharding/options.js';
import { deadline } from '../signal/deadline.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';
import { sleep, whenAborted } from '../signal/wait.js';
import { Engagements } from './engagements.js';
import {
  FieldIndexFailedError,
  GracefulShutdownTimeoutError,
  ManagerAlreadyStartedError,
  ManagerConfigError,
  ManagerStoppedError,
  RunnableFailedError,
} from './errors.js';
import { leaseNamespace, namespaceOr, validateOptions, type ManagerOptions } from './options.js';
import { runnableName } from './runnable-name.js';
import type { AwareRunnable, ClusterContext, Manager, Runnable } from './types.js';

type State = 'new' | 'running' | 'stopping' | 'stopped';

/** How long a readiness probe waits for the local cache before reporting it unsynced. */
const readinessSyncWaitMs = 250;

interface Running {
  readonly name: string;
  readonly done: Promise<void>;
  ready: boolean;
}

/** Signals of one run of the manager. */
interface Run {
  /** Aborts when shutdown is requested (the caller's signal, or a fatal error). */
  readonly stopRequested: LinkedAbort;
  /** Aborts first at shutdown: runnables and the provider. */
  readonly runnables: AbortController;
  /** Aborts after the runnables stopped: the local cluster (controllers may read its cache while draining). */
  readonly cluster: AbortController;
  nonLeaderStarted: boolean;
  /** Set once elected: the signal leader-only work runs under. */
  leaderSignal?: AbortSignal;
}

function isAware(r: Runnable | AwareRunnable): r is AwareRunnable {
  return typeof (r as Partial<Aware>).engage === 'function';
}

export class MultiClusterManager implements Manager {
  readonly logger: Logger;
  readonly metrics: MetricsRecorder;
  private readonly local: Cluster;
  private readonly engagements: Engagements;
  private readonly registered: (Runnable | AwareRunnable)[] = [];
  private readonly running = new Map<Runnable, Running>();
  private readonly healthChecks = new HealthChecks();
  private readonly readyChecks = new HealthChecks();
  private readonly servers: ProbeServer[] = [];
  private readonly elector: LeaseElector | undefined;
  private readonly coordinator: ShardCoordinator | undefined;
  private readonly gracefulShutdownTimeoutMs: number;
  private readonly electedPromise: Promise<void>;
  private resolveElected!: () => void;
  private state: State = 'new';
  private run: Run | undefined;
  private fatal: Error | undefined;
  private localSynced = false;
  private boundAddresses: { metrics?: string; healthProbe?: string } = {};

  constructor(
    config: KubeConfig,
    private readonly provider: Provider | undefined,
    private readonly options: ManagerOptions = {},
  ) {
    validateOptions(options);
    this.logger = options.logger ?? createLogger();
    this.metrics = options.metrics ?? new PrometheusMetrics();
    this.gracefulShutdownTimeoutMs = options.gracefulShutdownTimeoutMs ?? 30_000;
    this.local = options.localCluster ?? this.buildLocalCluster(config);
    this.engagements = new Engagements(this.logger, this.metrics);
    this.electedPromise = new Promise((resolve) => {
      this.resolveElected = resolve;
    });
    const le = options.leaderElection;
    if (le?.enabled) {
      this.elector = new LeaseElector(directClient(this.local), {
        namespace: leaseNamespace(le),
        name: le.name,
        identity: le.id,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        logger: this.logger.with({ cluster: LOCAL_CLUSTER }),
      });
    }
    if (options.sharding) {
      const sharding = resolveSharding(options.sharding, namespaceOr(options.sharding.namespace, 'sharding.namespace'));
      this.coordinator = new ShardCoordinator(
        directClient(this.local),
        sharding,
        this.engagements,
        this.logger.with({ shardGroup: sharding.groupName, replica: sharding.id }),
      );
    }
    this.readyChecks.add('local-cache-sync', async (signal) => {
      if (!this.localSynced) throw new Error('the local cluster cache has not synced yet');
      // Informers added since (e.g. controllers' local watches) must have synced too; a synced cache answers at once.
      const bound = deadline(signal, readinessSyncWaitMs);
      try {
        if (!(await this.local.waitForCacheSync(bound.signal))) throw new Error('informers of the local cluster have not synced yet');
      } finally {
        bound.dispose();
      }
    });
    this.readyChecks.add('runnables', () => {
      if (this.state !== 'running') throw new Error(`the manager is ${this.state === 'new' ? 'not started' : 'shutting down'}`);
      const waiting = [...this.running.values()].filter((r) => !r.ready).map((r) => r.name);
      if (waiting.length > 0) throw new Error(`not ready yet: ${waiting.join(', ')}`);
    });
  }

  private buildLocalCluster(config: KubeConfig): Cluster {
    const options = {
      logger: this.logger.with({ cluster: LOCAL_CLUSTER }),
      metrics: this.metrics,
      ...(this.options.client ? { client: this.options.client } : {}),
    };
    if (this.options.newCluster) return this.options.newCluster(config, options);
    try {
      return newCluster(config, { ...options, name: LOCAL_CLUSTER });
    } catch (err) {
      throw new ManagerConfigError(`cannot build the local cluster from the config: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }

  // ---- registration ----------------------------------------------------------------------------------------------

  add(runnable: Runnable | AwareRunnable): void {
    if (this.state === 'stopping' || this.state === 'stopped') throw new ManagerStoppedError(`add ${runnableName(runnable)}`);
    this.registered.push(runnable);
    const run = this.run;
    if (run && this.state === 'running') {
      if (!this.leaderOnly(runnable)) {
        if (run.nonLeaderStarted) this.startRunnable(runnable, run.runnables.signal);
      } else if (run.leaderSignal) {
        this.startRunnable(runnable, run.leaderSignal);
      }
    }
    if (isAware(runnable)) this.engagements.addAware(runnable);
  }

  /** Engages a cluster with every Aware runnable; with sharding, only once this replica owns it and holds its fence. */
  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    if (this.coordinator) return this.coordinator.engage(signal, name, cluster);
    return this.engagements.engage(signal, name, cluster);
  }

  /** Resolves true once every Aware runnable's work for `name` has fully stopped (see Aware.waitForDisengaged). */
  waitForDisengaged(signal: AbortSignal, name: ClusterName): Promise<boolean> {
    return this.engagements.waitForDisengaged(signal, name);
  }

  /** With sharding, Aware runnables run on every replica (fences guard each cluster); others follow needLeaderElection. */
  private leaderOnly(r: Runnable | AwareRunnable): boolean {
    if (r.needLeaderElection === false) return false;
    return !(this.coordinator && isAware(r));
  }

  addHealthzCheck(name: string, check: HealthCheck): void {
    this.healthChecks.add(name, check);
  }

  addReadyzCheck(name: string, check: HealthCheck): void {
    this.readyChecks.add(name, check);
  }

  // ---- lookups ---------------------------------------------------------------------------------------------------

  async getCluster(name: ClusterName, signal?: AbortSignal): Promise<Cluster> {
    if (name === LOCAL_CLUSTER) return this.local;
    if (!this.provider) {
      throw new ClusterNotFoundError(name, {
        cause: new Error(`the manager has no provider, so only the local cluster "" exists (asked for ${JSON.stringify(name)})`),
      });
    }
    if (this.coordinator && !this.coordinator.owns(name)) {
      await this.provider.get(name, signal); // a cluster nobody has stays ClusterNotFoundError
      throw new ClusterNotOwnedError(name, this.coordinator.id, this.coordinator.ownerOf(name));
    }
    return this.provider.get(name, signal);
  }

  clusterFromContext(ctx: ClusterContext): Promise<Cluster> {
    return this.getCluster(ctx.clusterName);
  }

  getLocalCluster(): Cluster {
    return this.local;
  }

  getProvider(): Provider | undefined {
    return this.provider;
  }

  /** Indexes the local cluster and the provider's clusters (present and future); upstream indexes only the latter. */
  getFieldIndexer(): FieldIndexer {
    return {
      indexField: async (kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> => {
        const failures: { target: string; error: unknown }[] = [];
        try {
          await this.local.fieldIndexer.indexField(kind, field, extract);
        } catch (error) {
          failures.push({ target: 'the local cluster', error });
        }
        if (this.provider) {
          try {
            await this.provider.indexField(kind, field, extract);
          } catch (error) {
            failures.push({ target: 'the provider', error });
          }
        }
        if (failures.length > 0) throw new FieldIndexFailedError(field, failures);
      },
    };
  }

  /** Names of the clusters engaged through this manager. */
  engagedClusters(): ClusterName[] {
    return this.engagements.names();
  }

  elected(): Promise<void> {
    return this.electedPromise;
  }

  /** The addresses the probe servers listen on (after `start`), e.g. to find a port picked with `:0`. */
  addresses(): { metrics?: string; healthProbe?: string } {
    return { ...this.boundAddresses };
  }

  // ---- running ---------------------------------------------------------------------------------------------------

  async start(signal: AbortSignal): Promise<void> {
    if (this.state !== 'new') throw new ManagerAlreadyStartedError();
    this.state = 'running';
    const run: Run = {
      stopRequested: linkedAbort(signal),
      runnables: new AbortController(),
      cluster: new AbortController(),
      nonLeaderStarted: false,
    };
    this.run = run;
    const log = this.logger.with({ cluster: LOCAL_CLUSTER });

    try {
      await this.startProbeServers();
    } catch (err) {
      this.state = 'stopped';
      run.stopRequested.dispose();
      await this.closeProbeServers();
      throw err;
    }

    log.info('starting the local cluster');
    const localDone = this.local.start(run.cluster.signal).then(
      () => {
        if (!run.cluster.signal.aborted) this.fail(new RunnableFailedError('local cluster', new Error('it stopped on its own')));
      },
      (err: unknown) => this.fail(new RunnableFailedError('local cluster', err)),
    );
    let campaign: Promise<Leadership | undefined> = Promise.resolve(undefined);
    try {
      if (await this.local.waitForCacheSync(run.stopRequested.signal)) {
        this.localSynced = true;
        log.info('local cluster cache synced');
      }
    } catch (err) {
      this.fail(new RunnableFailedError('local cluster', err));
    }
    if (!run.stopRequested.signal.aborted) {
      for (const r of this.registered) if (!this.leaderOnly(r)) this.startRunnable(r, run.runnables.signal);
      run.nonLeaderStarted = true;
      if (this.coordinator) this.startCoordinator(run.runnables.signal);
      if (this.elector && !this.providerLeaderOnly()) this.startProvider(run.runnables.signal);
      campaign = this.campaign(run);
    }

    await whenAborted(run.stopRequested.signal);
    return this.shutdown(run, campaign, localDone);
  }

  /** Waits to be elected (at once without leader election), then starts leader-only runnables and the provider. */
  private async campaign(run: Run): Promise<Leadership | undefined> {
    let term: Leadership | undefined;
    let leaderSignal = run.runnables.signal;
    if (this.elector) {
      try {
        term = await this.elector.acquire(run.stopRequested.signal);
      } catch (err) {
        this.fail(new RunnableFailedError('leader election', err));
        return undefined;
      }
      if (!term) return undefined;
      term.signal.addEventListener(
        'abort',
        () => {
          if (term!.signal.reason instanceof LeaderElectionLostError) this.fail(term!.signal.reason);
        },
        { once: true },
      );
      leaderSignal = linkedAbort(run.runnables.signal, term.signal).signal;
    }
    if (run.stopRequested.signal.aborted) return term;
    run.leaderSignal = leaderSignal;
    this.resolveElected();
    for (const r of this.registered) if (this.leaderOnly(r)) this.startRunnable(r, leaderSignal);
    // Without an election every runnable is "leader-only", so the provider still starts last.
    if (!this.elector || this.providerLeaderOnly()) this.startProvider(leaderSignal);
    return term;
  }

  /** Only a provider that asks for it waits for election; with sharding it never does (fences guard each cluster). */
  private providerLeaderOnly(): boolean {
    return !this.coordinator && isProviderRunnable(this.provider) && this.provider.needLeaderElection === true;
  }

  private startProvider(signal: AbortSignal): void {
    if (!isProviderRunnable(this.provider)) return;
    const provider = this.provider;
    const context: ProviderContext = { aware: this, localCluster: this.local, logger: this.logger, metrics: this.metrics };
    this.track(provider, 'provider', signal, () => provider.start(signal, context));
  }

  /** Sharding runs on every replica: the coordinator (peers, fences) that the provider feeds. */
  private startCoordinator(signal: AbortSignal): void {
    const coordinator = this.coordinator!;
    this.track(coordinator, 'shard coordinator', signal, () => coordinator.start(signal));
  }

  private startRunnable(r: Runnable, signal: AbortSignal): void {
    if (this.running.has(r)) return;
    const entry = this.track(r, runnableName(r), signal, () => r.start(signal));
    if (r.waitForReady) {
      entry.ready = false;
      r.waitForReady(signal).then(
        (ok) => {
          entry.ready = ok;
        },
        (err: unknown) => this.logger.error('runnable readiness check failed', err, { runnable: entry.name }),
      );
    }
  }

  /** Runs `start`, turning a failure into a manager stop (unless it happens during shutdown). */
  private track(key: object, name: string, signal: AbortSignal, start: () => Promise<void>): Running {
    this.logger.debug('starting runnable', { runnable: name });
    const entry: Running = {
      name,
      ready: true,
      done: (async () => {
        try {
          await start();
        } catch (err) {
          if (signal.aborted && this.state !== 'running') {
            this.logger.error('runnable failed while stopping', err, { runnable: name });
          } else {
            this.fail(new RunnableFailedError(name, err));
          }
        }
      })(),
    };
    this.running.set(key as Runnable, entry);
    return entry;
  }

  private fail(err: Error): void {
    if (this.state !== 'running') {
      this.logger.error('error while stopping', err);
      return;
    }
    if (!this.fatal) {
      this.fatal = err;
      this.logger.error('stopping the manager', err);
    }
    this.run?.stopRequested.abort(err);
  }

  private async shutdown(run: Run, campaign: Promise<Leadership | undefined>, localDone: Promise<void>): Promise<void> {
    this.state = 'stopping';
    this.logger.info('shutting down', { gracefulShutdownTimeoutMs: this.gracefulShutdownTimeoutMs });
    const deadline = performance.now() + this.gracefulShutdownTimeoutMs;
    const remaining = () => Math.max(0, deadline - performance.now());

    // Sharding first: clusters disengage now, but their fences stay held until the runnables have stopped.
    this.coordinator?.stop();
    run.runnables.abort();
    this.engagements.stop();
    const term = await campaign;
    const runnablesStopped = await settleWithin(
      [...this.running.values()].map((r) => r.done),
      remaining(),
    );
    const stillRunning = [...this.running.values()].filter((_r, i) => !runnablesStopped.settled[i]).map((r) => r.name);
    if (this.coordinator) {
      // Each fence is released only once its cluster's reconciles have ended; the others are left to expire.
      if (stillRunning.length > 0)
        this.logger.warn('runnables are still running; fences of clusters still being reconciled will expire instead of being released', {
          stillRunning,
        });
      await settleWithin(
        [this.coordinator.close(remaining()).catch((err: unknown) => this.logger.error('releasing cluster fences failed', err))],
        remaining(),
      );
    }
    if (term) {
      // Hand over at once only if no leader work is still running; otherwise let the Lease expire, so two leaders
      // never overlap. Released before the local cluster stops, because the release is written through its client.
      if (stillRunning.length === 0) await term.release();
      else {
        this.logger.warn('not releasing the leader Lease: runnables are still running; it will expire', { stillRunning });
        term.abandon();
      }
    }
    run.cluster.abort();
    const localStopped = await settleWithin([localDone], remaining());
    if (!localStopped.all) stillRunning.push('local cluster');
    run.stopRequested.dispose();
    await this.closeProbeServers();
    this.state = 'stopped';
    this.logger.info('stopped');
    if (this.fatal) throw this.fatal;
    if (stillRunning.length > 0) {
      const err = new GracefulShutdownTimeoutError(this.gracefulShutdownTimeoutMs, stillRunning);
      this.logger.error('graceful shutdown timed out', err);
      throw err;
    }
  }

  private async startProbeServers(): Promise<void> {
    const metricsAt = parseBindAddress(this.options.metricsBindAddress);
    const healthAt = parseBindAddress(this.options.healthProbeBindAddress);
    const metricsSource: MetricsSource | undefined =
      this.options.metricsRegistry ?? (this.metrics instanceof PrometheusMetrics ? this.metrics.registry : undefined);
    const health: ProbeRoutes = { healthz: this.healthChecks, readyz: this.readyChecks };
    const listen = async (bind: BindAddress, routes: ProbeRoutes): Promise<string> => {
      const server = new ProbeServer(routes);
      const address = await server.listen(bind);
      this.servers.push(server);
      return address;
    };
    if (metricsAt && healthAt && sameBind(metricsAt, healthAt) && metricsAt.port !== 0) {
      const address = await listen(metricsAt, { ...health, metrics: metricsSource });
      this.boundAddresses = { metrics: address, healthProbe: address };
    } else {
      if (metricsAt) this.boundAddresses.metrics = await listen(metricsAt, { metrics: metricsSource });
      if (healthAt) this.boundAddresses.healthProbe = await listen(healthAt, health);
    }
    for (const [what, address] of Object.entries(this.boundAddresses)) this.logger.info('serving probes', { what, address });
  }

  private async closeProbeServers(): Promise<void> {
    await Promise.all(this.servers.splice(0).map((s) => s.close()));
  }
}

function sameBind(a: BindAddress, b: BindAddress): boolean {
  return formatHostPort(a.host ?? '', a.port) === formatHostPort(b.host ?? '', b.port);
}

/** Waits up to `ms` for the promises (which never reject); says which settled. */
async function settleWithin(promises: Promise<void>[], ms: number): Promise<{ all: boolean; settled: boolean[] }> {
  const settled = promises.map(() => false);
  const all = Promise.all(
    promises.map((p, i) =>
      p.then(() => {
        settled[i] = true;
      }),
    ),
  );
  const timer = new AbortController();
  const finished = await Promise.race([all.then(() => true), sleep(ms, timer.signal).then(() => false)]);
  timer.abort();
  return { all: finished, settled };
}

/** Creates a manager for the local cluster `config` and an optional provider of further clusters. */
export function newManager(config: KubeConfig, provider?: Provider, options?: ManagerOptions): MultiClusterManager {
  return new MultiClusterManager(config, provider, options);
}
