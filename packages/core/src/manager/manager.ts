/**
 * The multi-cluster manager: runs the local cluster "", every runnable (controllers, registries) and the provider,
 * engages Aware runnables with each cluster the provider brings, serves metrics and health probes, and shuts it all
 * down within a deadline. What it guarantees:
 * - Start order (as controller-runtime, plus the provider): probe servers, the local cluster and its cache sync,
 *   runnables that need no leader election, then — once elected — the rest, and the provider last.
 * - With leader election the provider runs on every replica unless it sets `needLeaderElection: true`: standbys
 *   answer getCluster (a webhook served by a standby needs the member) and take over with clusters already
 *   engaged; their controllers record the engagements and start watching only once elected. With sharding, Aware
 *   runnables and the provider run on every replica and per-cluster fences keep two replicas apart.
 * - A runnable that fails stops the manager with its error; a lost Lease stops it with LeaderElectionLostError.
 * - Shutdown stops runnables and the provider first, releases fences of clusters whose reconciles ended and the
 *   leader Lease only if no leader work still runs (else they expire, so two owners never overlap), then stops the
 *   local cluster; whatever outlives `gracefulShutdownTimeoutMs` is abandoned and named in the error.
 * The parts live beside it: runnables.ts (tracking), probes.ts, election.ts, local-cluster.ts, engagements.ts and
 * shutdown.ts.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { FieldIndexer } from '../cache/types.js';
import { directClient } from '../cluster/direct-client.js';
import type { Cluster } from '../cluster/types.js';
import { LOCAL_CLUSTER, type ClusterName } from '../fleet/cluster-name.js';
import type { HealthCheck } from '../healthz/checks.js';
import type { Leadership } from '../leaderelection/lease-elector.js';
import type { EventRecorder } from '../events/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import type { MetricsRecorder } from '../metrics/types.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import { isProviderRunnable, type Provider, type ProviderContext } from '../multicluster/types.js';
import { fleetReadinessCheck, isStatusSource, type FleetReadiness } from '../providers/engager/readiness.js';
import { ShardCoordinator } from '../sharding/coordinator.js';
import { ClusterNotOwnedError } from '../sharding/errors.js';
import { resolveSharding } from '../sharding/options.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';
import { whenAborted } from '../signal/wait.js';
import { Election } from './election.js';
import { FleetLedger } from './fleet-ledger.js';
import { Engagements } from './engagements.js';
import { GracefulShutdownTimeoutError, ManagerAlreadyStartedError, ManagerConfigError, ManagerStoppedError } from './errors.js';
import { fleetFieldIndexer, LocalClusterRun, localClusterFor } from './local-cluster.js';
import { namespaceOr, validateOptions, type ManagerOptions } from './options.js';
import { Probes } from './probes.js';
import { runnableName } from './runnable-name.js';
import { isAware, Runnables } from './runnables.js';
import { shutDown } from './shutdown.js';
import type { AwareRunnable, ClusterContext, Manager, Runnable } from './types.js';

type State = 'new' | 'running' | 'stopping' | 'stopped';

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

export class MultiClusterManager implements Manager {
  readonly logger: Logger;
  readonly metrics: MetricsRecorder;
  /** The recorder the options gave (or the default PrometheusMetrics): what `/metrics` serves. */
  private readonly recorder: MetricsRecorder;
  private readonly ledger: FleetLedger;
  private readonly local: LocalClusterRun;
  private readonly engagements: Engagements;
  private readonly runnables: Runnables;
  private readonly probes: Probes;
  private readonly election: Election;
  private readonly coordinator: ShardCoordinator | undefined;
  private readonly gracefulShutdownTimeoutMs: number;
  private state: State = 'new';
  private run: Run | undefined;
  private fatal: Error | undefined;

  constructor(
    config: KubeConfig,
    private readonly provider: Provider | undefined,
    private readonly options: ManagerOptions = {},
  ) {
    validateOptions(options);
    this.logger = options.logger ?? createLogger();
    this.recorder = options.metrics ?? new PrometheusMetrics();
    this.ledger = new FleetLedger(this.recorder);
    this.metrics = this.ledger;
    this.gracefulShutdownTimeoutMs = options.gracefulShutdownTimeoutMs ?? 30_000;
    const local = localClusterFor(config, options, this.logger, this.metrics);
    this.local = new LocalClusterRun(local, this.logger.with({ cluster: LOCAL_CLUSTER }), (err) => this.fail(err));
    this.engagements = new Engagements(this.logger, this.metrics);
    this.runnables = new Runnables(
      this.logger,
      (err) => this.fail(err),
      () => this.state !== 'running',
    );
    this.election = new Election(local, options.leaderElection, this.logger.with({ cluster: LOCAL_CLUSTER }));
    this.coordinator = this.newCoordinator();
    this.probes = new Probes(this.logger, () =>
      this.ledger.report(this.engagedClusters(), isStatusSource(this.provider) ? this.provider : undefined),
    );
    this.probes.ready.add('local-cache-sync', this.local.readiness);
    this.probes.ready.add('runnables', () => {
      if (this.state !== 'running') throw new Error(`the manager is ${this.state === 'new' ? 'not started' : 'shutting down'}`);
      const waiting = this.runnables.notReady();
      if (waiting.length > 0) throw new Error(`not ready yet: ${waiting.join(', ')}`);
    });
    if (options.fleetReadiness) this.probes.ready.add('fleet', this.fleetCheck(options.fleetReadiness));
  }

  private fleetCheck(level: FleetReadiness): HealthCheck {
    const provider = this.provider;
    if (!isStatusSource(provider)) {
      throw new ManagerConfigError(`fleetReadiness needs a provider that reports cluster statuses (statuses()); this one does not`);
    }
    return fleetReadinessCheck(provider, level);
  }

  private newCoordinator(): ShardCoordinator | undefined {
    const options = this.options.sharding;
    if (!options) return undefined;
    const sharding = resolveSharding(options, namespaceOr(options.namespace));
    const log = this.logger.with({ shardGroup: sharding.groupName, replica: sharding.id });
    return new ShardCoordinator(directClient(this.local.cluster), sharding, this.engagements, log);
  }

  add(runnable: Runnable | AwareRunnable): void {
    if (this.state === 'stopping' || this.state === 'stopped') throw new ManagerStoppedError(`add ${runnableName(runnable)}`);
    this.runnables.registered.push(runnable);
    const run = this.run;
    if (run && this.state === 'running') {
      if (!this.leaderOnly(runnable)) {
        if (run.nonLeaderStarted) this.runnables.start(runnable, run.runnables.signal);
      } else if (run.leaderSignal) {
        this.runnables.start(runnable, run.leaderSignal);
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
    this.probes.health.add(name, check);
  }

  addReadyzCheck(name: string, check: HealthCheck): void {
    this.probes.ready.add(name, check);
  }

  getCluster(name: ClusterName, signal?: AbortSignal): Promise<Cluster> {
    // Not async: every reconcile that reads its cluster comes here, and the provider's answer is passed on as is.
    if (name === LOCAL_CLUSTER) return Promise.resolve(this.local.cluster);
    const provider = this.provider;
    if (!provider) {
      return Promise.reject(
        new ClusterNotFoundError(name, {
          cause: new Error(`the manager has no provider, so only the local cluster "" exists (asked for ${JSON.stringify(name)})`),
        }),
      );
    }
    const coordinator = this.coordinator;
    try {
      if (coordinator && !coordinator.owns(name)) {
        // A cluster nobody has stays ClusterNotFoundError.
        return provider.get(name, signal).then(() => {
          throw new ClusterNotOwnedError(name, coordinator.id, coordinator.ownerOf(name));
        });
      }
      return provider.get(name, signal);
    } catch (err) {
      // A provider that throws instead of rejecting still gives the caller a rejected promise.
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  clusterFromContext(ctx: ClusterContext): Promise<Cluster> {
    return this.getCluster(ctx.clusterName);
  }

  getEventRecorderFor(reportingController: string): EventRecorder {
    return this.local.cluster.getEventRecorderFor(reportingController);
  }

  getLocalCluster(): Cluster {
    return this.local.cluster;
  }

  getProvider(): Provider | undefined {
    return this.provider;
  }

  /** Indexes the local cluster and the provider's clusters (present and future); upstream indexes only the latter. */
  getFieldIndexer(): FieldIndexer {
    return fleetFieldIndexer(this.local.cluster, this.provider);
  }

  /** Names of the clusters engaged through this manager. */
  engagedClusters(): ClusterName[] {
    return this.engagements.names();
  }

  elected(): Promise<void> {
    return this.election.elected;
  }

  /** The addresses the probe servers listen on (after `start`), e.g. to find a port picked with `:0`. */
  addresses(): { metrics?: string; healthProbe?: string } {
    return this.probes.addresses();
  }

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
    try {
      await this.probes.listen(this.options, this.recorder);
    } catch (err) {
      this.state = 'stopped';
      run.stopRequested.dispose();
      throw err;
    }
    const localDone = this.local.start(run.cluster.signal);
    let campaign: Promise<Leadership | undefined> = Promise.resolve(undefined);
    await this.local.waitForSync(run.stopRequested.signal);
    if (!run.stopRequested.signal.aborted) {
      for (const r of this.runnables.registered) if (!this.leaderOnly(r)) this.runnables.start(r, run.runnables.signal);
      run.nonLeaderStarted = true;
      if (this.coordinator) this.startCoordinator(run.runnables.signal);
      if (this.election.contested && !this.providerLeaderOnly()) this.startProvider(run.runnables.signal);
      campaign = this.campaign(run);
    }
    await whenAborted(run.stopRequested.signal);
    return this.shutdown(run, campaign, localDone);
  }

  /** Waits to be elected (at once without leader election), then starts leader-only runnables and the provider. */
  private async campaign(run: Run): Promise<Leadership | undefined> {
    const victory = await this.election.campaign(run.stopRequested.signal, run.runnables.signal, (err) => this.fail(err));
    if (!victory || run.stopRequested.signal.aborted) return victory?.term;
    run.leaderSignal = victory.signal;
    this.election.won();
    for (const r of this.runnables.registered) if (this.leaderOnly(r)) this.runnables.start(r, victory.signal);
    // Without an election every runnable is "leader-only", so the provider still starts last.
    if (!this.election.contested || this.providerLeaderOnly()) this.startProvider(victory.signal);
    return victory.term;
  }

  /** Only a provider that asks for it waits for election; with sharding it never does (fences guard each cluster). */
  private providerLeaderOnly(): boolean {
    return !this.coordinator && isProviderRunnable(this.provider) && this.provider.needLeaderElection === true;
  }

  private startProvider(signal: AbortSignal): void {
    if (!isProviderRunnable(this.provider)) return;
    const provider = this.provider;
    const context: ProviderContext = { aware: this, localCluster: this.local.cluster, logger: this.logger, metrics: this.metrics };
    this.runnables.track(provider, 'provider', signal, () => provider.start(signal, context));
  }

  /** Sharding runs on every replica: the coordinator (peers, fences) that the provider feeds. */
  private startCoordinator(signal: AbortSignal): void {
    const coordinator = this.coordinator!;
    this.runnables.track(coordinator, 'shard coordinator', signal, () => coordinator.start(signal));
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

  private async shutdown(run: Run, leadership: Promise<Leadership | undefined>, localDone: Promise<void>): Promise<void> {
    this.state = 'stopping';
    this.logger.info('shutting down', { gracefulShutdownTimeoutMs: this.gracefulShutdownTimeoutMs });
    const stillRunning = await shutDown(
      {
        coordinator: this.coordinator,
        stopRunnables: () => {
          run.runnables.abort();
          this.engagements.stop();
        },
        leadership,
        runnables: this.runnables,
        stopLocalCluster: () => run.cluster.abort(),
        localDone,
        log: this.logger,
      },
      this.gracefulShutdownTimeoutMs,
    );
    run.stopRequested.dispose();
    await this.probes.close();
    this.state = 'stopped';
    this.logger.info('stopped');
    if (this.fatal) throw this.fatal;
    if (stillRunning.length > 0) {
      const err = new GracefulShutdownTimeoutError(this.gracefulShutdownTimeoutMs, stillRunning);
      this.logger.error('graceful shutdown timed out', err);
      throw err;
    }
  }
}

/** Creates a manager for the local cluster `config` and an optional provider of further clusters. */
export function newManager(config: KubeConfig, provider?: Provider, options?: ManagerOptions): MultiClusterManager {
  return new MultiClusterManager(config, provider, options);
}
