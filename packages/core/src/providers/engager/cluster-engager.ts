/**
 * `ClusterEngager`: the part both kubeconfig providers share. Sources (Secrets, file contexts) tell it what each
 * named cluster should be (a config, nothing, or refused content); it converges every name on its own, concurrently,
 * so one slow or unreachable cluster never holds up the others. Per name the
 * work is serialised and coalesced: only the newest wish is acted on, and a newer wish aborts an attempt in flight.
 * New clusters are probed, then started, synced, indexed and engaged through core's ClusterSet; failures become the
 * cluster's status and, when retrying can help, a retry with capped exponential backoff.
 */
import { newCluster } from '../../cluster/cluster.js';
import type { Cluster } from '../../cluster/types.js';
import type { IndexerFunc } from '../../cache/types.js';
import { silentLogger, type Logger } from '../../log/logger.js';
import type { MetricsRecorder } from '../../metrics/types.js';
import { linkedAbort, type LinkedAbort } from '../../signal/linked.js';
import type { ClusterName } from '../../fleet/cluster-name.js';
import type { Aware, ProviderContext } from '../../multicluster/types.js';
import type { ObjectKind } from '../../object/types.js';
import { ClusterSet } from '../clusters/cluster-set.js';
import { statusMessages, type ClusterHealth, type ClusterState, type ClusterStatus } from './cluster-status.js';
import type { DesiredCluster } from './desired-cluster.js';
import { ProviderConfigError } from '../errors.js';
import { classifyFailure, closeUnstarted, probeCluster } from './probe.js';
import { watchHealth } from './health.js';
import { connectionRules, type ClusterConnectionOptions, type ClusterFactory } from './connection-options.js';

export type { ClusterConnectionOptions, ClusterFactory, RetryOptions } from './connection-options.js';

interface Attempt {
  readonly fingerprint: string;
  readonly abort: LinkedAbort;
}

interface Slot {
  readonly name: ClusterName;
  desired: DesiredCluster;
  /** Fingerprint of the config the engaged cluster (if any) was built from. */
  engagedFingerprint?: string;
  /** The engaged cluster; cleared before it is removed on purpose, so its end is only "lost" when unplanned. */
  engagedCluster?: Cluster;
  attempt?: Attempt;
  /** Fingerprint of the config whose last attempt failed (a retry of it is pending or due). */
  failedFingerprint?: string;
  /** Serialises work on this name. */
  chain: Promise<void>;
  queued: boolean;
  retryTimer?: ReturnType<typeof setTimeout>;
  failures: number;
  status?: ClusterStatus;
}

/** Shared by providers: each owns its sources and feeds what it reads in with `wish`. */
export class ClusterEngager {
  private readonly set: ClusterSet;
  private readonly slots = new Map<ClusterName, Slot>();
  private log: Logger;
  private metrics: MetricsRecorder | undefined;
  private readonly factory: ClusterFactory;
  private readonly probeTimeoutMs: number;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private run: { aware: Aware; signal: AbortSignal } | undefined;
  private stopped = false;

  constructor(
    private readonly owner: string,
    private readonly options: ClusterConnectionOptions = {},
  ) {
    const problems = Object.entries(connectionRules).flatMap(([key, r]) => {
      const value = (options as Record<string, unknown>)[key];
      return value === undefined ? [] : r.check(value, `options.${key}`);
    });
    if (problems.length > 0) throw new ProviderConfigError(owner, problems.map((p) => p.message).join('; '));
    this.log = (options.logger ?? silentLogger).with({ provider: owner });
    this.metrics = options.metrics;
    this.set = new ClusterSet({
      waitCacheTimeoutMs: options.waitCacheTimeoutMs ?? 30_000,
      ...(options.logger ? { logger: this.log } : {}),
      metrics: options.metrics,
      owner,
    });
    const clusterOptions = options.clusterOptions ?? {};
    this.factory = options.newCluster ?? ((config, o) => newCluster(config, { ...clusterOptions, ...o }));
    this.probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
    this.retryInitialMs = options.retry?.initialMs ?? 1_000;
    this.retryMaxMs = Math.max(options.retry?.maxMs ?? 300_000, this.retryInitialMs);
  }

  /** The provider's logger (`{ provider: owner }` on every record): the `logger` option, else the start context's. */
  get logger(): Logger {
    return this.log;
  }

  /**
   * Logs and records through the provider's start context from now on, where the options named no logger or metrics
   * of their own. EngagerProvider calls it when the provider starts.
   */
  useContext(context: ProviderContext): void {
    if (!this.options.logger) this.log = context.logger.with({ provider: this.owner });
    this.metrics ??= context.metrics;
    this.set.useContext({ logger: this.log, metrics: context.metrics });
  }

  /** Starts acting on wishes, engaging through `aware` until `signal` aborts. Wishes given before are kept. */
  begin(aware: Aware, signal: AbortSignal): void {
    this.run = { aware, signal };
    for (const slot of this.slots.values()) this.enqueue(slot);
  }

  /** Records what `name` should be now and starts converging on it. Never blocks and never throws. */
  wish(name: ClusterName, desired: DesiredCluster): void {
    if (this.stopped) return;
    let slot = this.slots.get(name);
    if (!slot) {
      if (desired.kind === 'absent') return;
      slot = { name, desired, chain: Promise.resolve(), queued: false, failures: 0 };
      this.slots.set(name, slot);
    }
    // The same failing config again (a Secret's labels were edited, say) keeps its backoff instead of retrying now.
    const retrying = slot.retryTimer !== undefined && desired.kind === 'config' && desired.fingerprint === slot.failedFingerprint;
    slot.desired = desired;
    if (retrying) return;
    // A wish for another config (or none) makes the attempt in flight pointless: abort it so a slow or unreachable
    // server does not delay what the source says now.
    const attempt = slot.attempt;
    if (attempt && (desired.kind !== 'config' || desired.fingerprint !== attempt.fingerprint)) attempt.abort.abort();
    this.clearRetry(slot);
    if (this.run) this.enqueue(slot);
  }

  /**
   * What became of one cluster the provider was told about, or undefined if none by that name.
   */
  status(name: ClusterName): ClusterStatus | undefined {
    return this.slots.get(name)?.status;
  }

  /**
   * Every cluster the provider was told about, with its status.
   */
  statuses(): Map<ClusterName, ClusterStatus> {
    const out = new Map<ClusterName, ClusterStatus>();
    for (const [name, slot] of this.slots) if (slot.status) out.set(name, slot.status);
    return out;
  }

  /**
   * The engaged cluster with this name; ClusterNotFoundError otherwise.
   */
  get(name: ClusterName): Promise<Cluster> {
    return this.set.get(name);
  }

  /** Engaged cluster names, sorted. */
  names(): ClusterName[] {
    return this.set.names();
  }

  /**
   * Registers a field index on every engaged cluster and on every cluster engaged later.
   */
  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.set.indexField(kind, field, extract);
  }

  /** Aborts attempts, cancels retries, waits for running work, then stops and disengages every cluster. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const slot of this.slots.values()) {
      slot.attempt?.abort.abort();
      this.clearRetry(slot);
    }
    await Promise.all([...this.slots.values()].map((s) => s.chain));
    await this.set.removeAll();
  }

  private enqueue(slot: Slot): void {
    if (slot.queued || this.stopped) return;
    slot.queued = true;
    slot.chain = slot.chain.then(async () => {
      slot.queued = false;
      if (this.stopped) return;
      try {
        await this.converge(slot);
      } catch (err) {
        // converge handles its failures; this is a bug guard so one name can never wedge its chain.
        this.log.error('unexpected error while converging a cluster', err, { cluster: slot.name });
      }
    });
  }

  private async converge(slot: Slot): Promise<void> {
    const desired = slot.desired;
    switch (desired.kind) {
      case 'absent':
        await this.disengage(slot);
        if (slot.desired === desired && !slot.queued) {
          this.slots.delete(slot.name);
          this.clearRetry(slot);
          if (slot.status) this.log.info('cluster source is gone; cluster disengaged', { cluster: slot.name });
          this.notify(slot.name, undefined);
        }
        return;
      case 'refused':
        if (desired.keepEngaged && this.set.has(slot.name)) {
          this.setStatus(slot, 'engaged', `new content ignored, the last good config stays engaged: ${desired.reason}`);
          return;
        }
        await this.disengage(slot);
        slot.failedFingerprint = undefined;
        this.setStatus(slot, desired.state, desired.reason);
        return;
      case 'config':
        await this.connect(slot, desired);
        return;
    }
  }

  private async connect(slot: Slot, desired: Extract<DesiredCluster, { kind: 'config' }>): Promise<void> {
    const run = this.run;
    if (!run) return;
    if (slot.engagedFingerprint === desired.fingerprint && this.set.has(slot.name)) {
      this.setStatus(slot, 'engaged');
      return;
    }
    const attempt: Attempt = { fingerprint: desired.fingerprint, abort: linkedAbort(run.signal) };
    slot.attempt = attempt;
    const signal = attempt.abort.signal;
    // Retries of a failing config keep reporting the failure (with its count) instead of flipping to pending.
    if (slot.failedFingerprint !== desired.fingerprint) this.setStatus(slot, 'pending');
    let cluster: Cluster | undefined;
    try {
      // The manager's metrics reach the cluster's informers and cache (informer state, cache limits) per member.
      cluster = this.factory(desired.config, {
        name: slot.name,
        logger: this.log.with({ cluster: slot.name }),
        ...(this.metrics ? { metrics: this.metrics } : {}),
      });
      await probeCluster(cluster, signal, this.probeTimeoutMs);
      const replaced = slot.engagedCluster;
      slot.engagedCluster = undefined; // replacing it is planned
      const outcome = await this.set.addOrReplace(slot.name, cluster, this.watching(slot, run.aware), { signal });
      if (outcome === 'unchanged') {
        await closeUnstarted(cluster);
        slot.engagedCluster = replaced;
      } else {
        slot.engagedCluster = cluster;
      }
      slot.engagedFingerprint = desired.fingerprint;
      slot.failedFingerprint = undefined;
      slot.failures = 0;
      this.setStatus(slot, 'engaged');
    } catch (err) {
      if (cluster) await closeUnstarted(cluster);
      if (signal.aborted) return; // superseded by a newer wish, or stopping
      slot.failures = slot.failedFingerprint === desired.fingerprint ? slot.failures + 1 : 1;
      slot.failedFingerprint = desired.fingerprint;
      const verdict = classifyFailure(err);
      // The source now describes this config, so whatever was engaged before is stale.
      await this.disengage(slot);
      this.setStatus(slot, verdict.state, verdict.reason);
      if (verdict.retry) this.scheduleRetry(slot);
    } finally {
      if (slot.attempt === attempt) slot.attempt = undefined;
      attempt.abort.dispose();
    }
  }

  /** Removes the slot's cluster on purpose. */
  private async disengage(slot: Slot): Promise<void> {
    slot.engagedCluster = undefined;
    slot.engagedFingerprint = undefined;
    await this.set.remove(slot.name);
  }

  /**
   * Wraps `aware` to notice when an engaged cluster ends without being removed on purpose (its cache failed and
   * ClusterSet dropped it): the cluster is then reported as failed and reconnected with backoff.
   */
  private watching(slot: Slot, aware: Aware): Aware {
    return {
      engage: (signal, name, cluster) => {
        signal.addEventListener(
          'abort',
          () => {
            if (this.stopped || slot.engagedCluster !== cluster || this.slots.get(slot.name) !== slot) return;
            slot.failedFingerprint = slot.engagedFingerprint;
            slot.engagedCluster = undefined;
            slot.engagedFingerprint = undefined;
            slot.failures = 1;
            const cause = signal.reason as { name?: unknown; message?: unknown } | undefined;
            const why = cause?.name !== 'AbortError' && typeof cause?.message === 'string' ? `: ${cause.message}` : '';
            this.setStatus(slot, 'failed', `the cluster stopped unexpectedly${why}; reconnecting`);
            this.scheduleRetry(slot);
          },
          { once: true },
        );
        this.metrics?.clusterReachable?.(name, true);
        if (this.options.healthCheck !== false) {
          const report = (health: ClusterHealth) => this.setHealth(slot, cluster, health);
          void watchHealth(cluster, signal, this.options.healthCheck ?? {}, report);
        }
        return aware.engage(signal, name, cluster);
      },
    };
  }

  /** Records an engaged cluster's reachability in its status, with one log line per change. */
  private setHealth(slot: Slot, cluster: Cluster, health: ClusterHealth): void {
    if (this.stopped || slot.engagedCluster !== cluster || !slot.status) return;
    slot.status = { ...slot.status, health };
    this.metrics?.clusterReachable?.(slot.name, health.reachable);
    if (health.reachable) this.log.info('engaged cluster answers again', { cluster: slot.name });
    else this.log.warn('engaged cluster does not answer; its informers keep retrying', { cluster: slot.name, error: health.lastError });
    this.notify(slot.name, slot.status);
  }

  private scheduleRetry(slot: Slot): void {
    this.clearRetry(slot);
    if (this.stopped) return;
    const base = Math.min(this.retryMaxMs, this.retryInitialMs * 2 ** Math.min(slot.failures - 1, 30));
    // ±20% jitter, so clusters that failed together do not retry in lockstep.
    const delay = Math.round(base * (0.8 + 0.4 * Math.random()));
    this.log.debug('retrying cluster later', { cluster: slot.name, delayMs: delay, failures: slot.failures });
    slot.retryTimer = setTimeout(() => {
      slot.retryTimer = undefined;
      if (this.slots.get(slot.name) === slot) this.enqueue(slot);
    }, delay);
  }

  private clearRetry(slot: Slot): void {
    if (slot.retryTimer !== undefined) clearTimeout(slot.retryTimer);
    slot.retryTimer = undefined;
  }

  private setStatus(slot: Slot, state: ClusterState, reason?: string): void {
    const previous = slot.status;
    if (previous && previous.state === state && previous.reason === reason && previous.failures === slot.failures) return;
    const changed = previous?.state !== state || previous?.reason !== reason;
    const since = changed || !previous ? new Date() : previous.since;
    // A cluster that becomes engaged starts out reachable (it just answered the probe); other states have no health.
    const health = state !== 'engaged' ? undefined : previous?.state === 'engaged' ? previous.health : { reachable: true, since };
    const status: ClusterStatus = {
      state,
      ...(reason === undefined ? {} : { reason }),
      since,
      failures: slot.failures,
      ...(health ? { health } : {}),
    };
    slot.status = status;
    if (changed) {
      const fields = { cluster: slot.name, state, ...(reason === undefined ? {} : { reason }) };
      if (state === 'pending') this.log.debug(statusMessages[state], fields);
      else if (state === 'engaged' && reason === undefined) this.log.info(statusMessages[state], fields);
      else
        this.log.warn(
          reason !== undefined && state === 'engaged' ? 'cluster stays engaged; new content ignored' : statusMessages[state],
          fields,
        );
    }
    this.notify(slot.name, status);
  }

  private notify(name: ClusterName, status: ClusterStatus | undefined): void {
    const listener = this.options.onStatus;
    if (!listener) return;
    try {
      listener(name, status);
    } catch (err) {
      this.log.error('status listener threw', err, { cluster: name });
    }
  }
}
