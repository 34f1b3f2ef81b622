/**
 * The multi-cluster controller: one work queue shared by every cluster (fair across clusters), workers that call the
 * reconciler, static sources (e.g. the local cluster's) and multi-cluster sources that are started for each engaged
 * cluster and stopped when it is disengaged. A disengaged cluster's queued work is dropped and its in-flight
 * reconciles see their signal abort, and `waitForDisengaged` says when the last of them has returned (even one that
 * ignores its signal); an old engagement's cleanup can never remove its replacement; nothing a reconciler throws
 * escapes.
 */
import type { Cluster } from '../cluster/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import { orAborted, whenAborted } from '../signal/wait.js';
import type { Runnable } from '../manager/types.js';
import { noopMetrics, type MetricsRecorder, type ReconcileOutcome } from '../metrics/types.js';
import { isClusterNotFound } from '../multicluster/errors.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware } from '../multicluster/types.js';
import { isTerminalError } from '../reconcile/errors.js';
import type { ReconcileContext, ReconcileFunc, Request, Result } from '../reconcile/types.js';
import type { MultiClusterSource, Source } from '../source/types.js';
import { newRequestQueue } from '../workqueue/request-queue.js';
import type { RateLimitingQueue } from '../workqueue/types.js';
import { deadline } from '../signal/deadline.js';
import { Engagement, type EndReason } from './engagement.js';
import { linkedAbort } from '../signal/linked.js';
import { InFlight } from './in-flight.js';
import { endReconcileContext, lazyReconcileContext } from './reconcile-context.js';
import { ControllerAlreadyStartedError, ControllerEngageFailedError, WaitForSyncTimeoutError } from './errors.js';
import { resolveControllerOptions, type ControllerOptions } from './options.js';

export type { ControllerOptions } from './options.js';

type Phase = 'new' | 'running' | 'stopping' | 'stopped';

export class Controller implements Runnable, Aware {
  readonly needLeaderElection: boolean;
  private readonly reconcileFn: ReconcileFunc;
  private readonly maxConcurrent: number;
  private readonly cacheSyncTimeoutMs: number;
  private readonly onClusterNotFound: 'drop' | 'retry';
  private readonly log: Logger;
  private readonly metrics: MetricsRecorder;
  private readonly queue: RateLimitingQueue<Request>;
  private readonly staticSources: Source[] = [];
  private readonly multiClusterSources: MultiClusterSource[] = [];
  private readonly engagements = new Map<ClusterName, Engagement>();
  private readonly inFlight = new InFlight();
  private phase: Phase = 'new';
  private runSignal: AbortSignal | undefined;
  private active = 0;
  private readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor(
    readonly name: string,
    options: ControllerOptions,
  ) {
    ({
      reconcileFn: this.reconcileFn,
      maxConcurrent: this.maxConcurrent,
      cacheSyncTimeoutMs: this.cacheSyncTimeoutMs,
      onClusterNotFound: this.onClusterNotFound,
      needLeaderElection: this.needLeaderElection,
    } = resolveControllerOptions(name, options));
    this.log = (options.logger ?? createLogger()).with({ controller: name });
    this.metrics = options.metrics ?? noopMetrics;
    this.queue = newRequestQueue({
      name,
      metrics: this.metrics,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
  }

  /** Resolves true once started with its static sources synced (the manager's /readyz), false if `signal` aborts first. */
  waitForReady(signal: AbortSignal): Promise<boolean> {
    return orAborted(
      this.ready.then(() => true),
      signal,
      false,
    );
  }

  /** Clusters engaged now. */
  engagedClusters(): ClusterName[] {
    return [...this.engagements.keys()];
  }

  /** Watches a source that is not per cluster (the local cluster's, a channel). Started now if running. */
  watch(source: Source): void {
    this.staticSources.push(source);
    if (this.phase !== 'running') return;
    const signal = this.runSignal!;
    source.start(signal, this.queue).catch((err: unknown) => {
      this.log.error('starting a source failed', err);
    });
  }

  /** Watches a source in every engaged cluster, present and future. */
  multiClusterWatch(source: MultiClusterSource): void {
    this.multiClusterSources.push(source);
    if (this.phase !== 'running') return;
    for (const eng of this.engagements.values()) {
      this.startSource(eng, source).catch((err: unknown) => {
        this.log.error('starting a source for an engaged cluster failed', err, { cluster: eng.name });
      });
    }
  }

  async engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    if (signal.aborted) return;
    if (this.phase === 'stopping' || this.phase === 'stopped') {
      this.log.debug('ignoring engagement of a stopped controller', { cluster: name });
      return;
    }
    const current = this.engagements.get(name);
    if (current?.cluster === cluster && current.live) return;
    const eng = new Engagement(this.name, name, cluster, signal, (e, reason) => this.ended(e, reason));
    // Register the replacement before ending the old one, so the old engagement's cleanup sees it is no longer current.
    this.engagements.set(name, eng);
    current?.end('replaced');
    this.metrics.engagedClusters(this.name, this.engagements.size);
    if (this.phase !== 'running') return; // started by start()
    try {
      await this.startSources(eng);
    } catch (err) {
      // Replaced or disengaged meanwhile: the failure concerns an engagement nobody waits for any more.
      if (!eng.live) return;
      eng.end('failed');
      throw new ControllerEngageFailedError(this.name, name, err);
    }
  }

  /**
   * Resolves true once `name` is not engaged (its sources stopped, its queued requests dropped) and no reconcile of
   * it is running, also one that ignores its aborted signal; false if `signal` aborts first. See Aware.
   */
  async waitForDisengaged(signal: AbortSignal, name: ClusterName): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      if (this.quiet(name)) {
        // A worker the queue has just handed a request counts it one microtask later (when its await resumes);
        // after one macrotask turn every such worker has, so quiet then means quiet.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.quiet(name)) return true;
        continue;
      }
      await this.inFlight.changed(name, signal);
    }
  }

  private quiet(name: ClusterName): boolean {
    return !this.engagements.has(name) && this.inFlight.running(name) === 0;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.phase !== 'new') throw new ControllerAlreadyStartedError(this.name);
    this.phase = 'running';
    // Our own child signal: static sources and reconciles stop when start() ends for any reason, errors included.
    const run = linkedAbort(signal);
    this.runSignal = run.signal;
    try {
      if (run.signal.aborted) return;
      await this.startStaticSources(run.signal);
      for (const eng of [...this.engagements.values()]) {
        this.startSources(eng).catch((err: unknown) => {
          this.log.error('starting sources for a cluster engaged before start failed; disengaging it', err, { cluster: eng.name });
          eng.end('failed');
        });
      }
      const workers = Array.from({ length: this.maxConcurrent }, () => this.worker());
      this.markReady();
      this.log.info('controller started', { workers: this.maxConcurrent });
      await whenAborted(run.signal);
      this.phase = 'stopping';
      this.log.info('controller stopping; waiting for running reconciles');
      for (const eng of [...this.engagements.values()]) eng.end('stopped');
      await this.queue.shutDownWithDrain();
      await Promise.all(workers);
    } finally {
      this.phase = 'stopped';
      run.abort();
      run.dispose();
      for (const eng of [...this.engagements.values()]) eng.end('stopped');
      if (!this.queue.isShuttingDown()) this.queue.shutDown();
      this.log.info('controller stopped');
    }
  }

  private async startStaticSources(signal: AbortSignal): Promise<void> {
    for (const source of this.staticSources) await source.start(signal, this.queue);
    if (this.staticSources.length === 0) return;
    const d = deadline(signal, this.cacheSyncTimeoutMs);
    try {
      const synced = await Promise.all(this.staticSources.map((s) => s.waitForSync(d.signal)));
      if (!synced.every(Boolean) && d.timedOut) throw new WaitForSyncTimeoutError(this.name, this.cacheSyncTimeoutMs);
    } finally {
      d.dispose();
    }
  }

  private async startSources(eng: Engagement): Promise<void> {
    for (const source of [...this.multiClusterSources]) {
      if (!eng.live) return;
      await this.startSource(eng, source);
    }
  }

  /** Starts one multi-cluster source for one engagement (once), then watches its sync in the background. */
  private async startSource(eng: Engagement, mc: MultiClusterSource): Promise<void> {
    if (eng.started.has(mc) || !eng.live) return;
    eng.started.add(mc);
    const source = mc.forCluster(eng.name, eng.cluster);
    if (!source) return;
    await source.start(eng.signal, this.queue);
    if (!eng.live) return;
    const d = deadline(eng.signal, this.cacheSyncTimeoutMs);
    source
      .waitForSync(d.signal)
      .then(
        (synced) => {
          if (!synced && d.timedOut) {
            this.log.warn('a source has not synced within the cache sync timeout; events will flow once it does', {
              cluster: eng.name,
              timeoutMs: this.cacheSyncTimeoutMs,
            });
          }
        },
        (err: unknown) => this.log.error('waiting for a source to sync failed', err, { cluster: eng.name }),
      )
      .finally(() => d.dispose());
  }

  /** Cleanup when an engagement ends; token-checked so a replaced engagement never removes its successor. */
  private ended(eng: Engagement, reason: EndReason): void {
    if (this.engagements.get(eng.name) !== eng) return;
    this.engagements.delete(eng.name);
    this.metrics.engagedClusters(this.name, this.engagements.size);
    if (reason === 'disengaged' || reason === 'failed') {
      this.queue.dropGroup(eng.name);
      this.log.info('cluster disengaged; its queued requests were dropped', {
        cluster: eng.name,
        reconcilesStillRunning: this.inFlight.running(eng.name),
      });
    }
    this.inFlight.poke(eng.name);
    this.inFlight.release(eng.name);
  }

  /** Takes requests and reconciles them, one at a time. One reconcile is one await: of the reconciler itself. */
  private async worker(): Promise<void> {
    for (;;) {
      const req = await this.queue.get();
      if (req === undefined) return;
      this.inFlight.begin(req.clusterName);
      const eng = this.engagements.get(req.clusterName);
      // One parent is enough: an engagement ends ('stopped') when the controller stops, as well as when its cluster
      // goes.
      const ctx = lazyReconcileContext(req, eng?.signal ?? this.runSignal, this.log);
      const t0 = performance.now();
      let outcome: ReconcileOutcome | undefined;
      try {
        this.metrics.activeWorkers(this.name, ++this.active);
        let result: Result | void = undefined;
        let failure: { error: unknown } | undefined;
        try {
          // A reconciler that throws before returning its promise is caught here too.
          result = await this.reconcileFn(req, ctx);
        } catch (error) {
          failure = { error };
        }
        outcome = failure ? this.failed(req, failure.error, ctx.log, eng) : this.succeeded(req, result, eng);
      } catch (err) {
        // Only a failing logger or metrics sink gets here; the request is retried rather than lost.
        outcome = undefined;
        this.queue.addRateLimited(req);
        this.internalError('internal error while handling a reconcile', err);
      } finally {
        this.finish(req, ctx, eng, outcome, t0);
      }
    }
  }

  /** After one reconcile, whatever its outcome: its signal unlinked, metrics, and the request done in the queue. */
  private finish(
    req: Request,
    ctx: ReconcileContext,
    eng: Engagement | undefined,
    outcome: ReconcileOutcome | undefined,
    t0: number,
  ): void {
    try {
      endReconcileContext(ctx);
      this.metrics.activeWorkers(this.name, --this.active);
      // A disengaged cluster's series were forgotten; recording now would resurrect them.
      if (outcome !== undefined && eng?.endReason !== 'disengaged') {
        this.metrics.reconcileDone(this.name, req.clusterName, outcome, (performance.now() - t0) / 1000);
      }
    } catch (err) {
      this.internalError('internal error while recording a reconcile', err);
    } finally {
      this.queue.done(req);
      this.inFlight.end(req.clusterName);
      // A cluster that went while this ran leaves no count behind; the local cluster ('') is never engaged.
      if (req.clusterName !== '' && !this.engagements.has(req.clusterName)) this.inFlight.release(req.clusterName);
    }
  }

  /** Logs a failure of the logger or metrics sink itself; if logging throws too, there is nowhere left to say it. */
  private internalError(msg: string, err: unknown): void {
    try {
      this.log.error(msg, err);
    } catch {
      // The worker must go on; the request itself was already settled in the queue or put back in it.
    }
  }

  private succeeded(req: Request, result: Result | void, eng: Engagement | undefined): ReconcileOutcome {
    if (eng?.endReason === 'disengaged') {
      this.queue.forget(req);
      return 'success';
    }
    const after = result?.requeueAfter;
    if (typeof after === 'number' && after > 0) {
      this.queue.forget(req);
      this.queue.addAfter(req, after);
      return 'requeue_after';
    }
    if (result?.requeue) {
      this.queue.addRateLimited(req);
      return 'requeue';
    }
    this.queue.forget(req);
    return 'success';
  }

  private failed(req: Request, err: unknown, log: Logger, eng: Engagement | undefined): ReconcileOutcome {
    if (eng?.endReason === 'disengaged') {
      // The cluster went away mid-reconcile; its work is dropped, not retried.
      this.queue.forget(req);
      log.debug('reconcile ended after its cluster was disengaged', { error: String(err) });
      return 'cluster_not_found';
    }
    if (isTerminalError(err)) {
      this.queue.forget(req);
      log.error('reconcile failed with a terminal error; not retrying', err);
      return 'terminal_error';
    }
    if (isClusterNotFound(err) && this.onClusterNotFound === 'drop') {
      this.queue.forget(req);
      log.info('cluster not found; dropping the request', { error: err instanceof Error ? err.message : String(err) });
      return 'cluster_not_found';
    }
    this.queue.addRateLimited(req);
    log.error('reconcile failed; retrying with backoff', err, { retries: this.queue.numRequeues(req) });
    return 'error';
  }
}

/** A controller ready to be added to a manager (`mgr.add(c)`), or started and engaged by hand. */
export function newController(name: string, options: ControllerOptions): Controller {
  return new Controller(name, options);
}
