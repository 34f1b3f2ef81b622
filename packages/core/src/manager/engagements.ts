/**
 * The manager's engagement table: which clusters are engaged and which Aware runnables hear about them. Engaging fans
 * out to every Aware (one failing does not stop the others); an Aware added later is engaged with every live cluster,
 * so the order in which runnables and clusters arrive does not matter. Each engagement has its own signal, aborted when
 * the provider disengages the cluster, when a new instance replaces it, or when the manager stops; cleanup is checked
 * against the record, so a replaced engagement ending late never removes its successor. `waitForDisengaged` asks every
 * Aware whether its work for a cluster has fully stopped.
 */
import type { Cluster } from '../cluster/types.js';
import type { Logger } from '../log/logger.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware } from '../multicluster/types.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';
import { EngageFailedError, ManagerStoppedError } from './errors.js';
import { runnableName } from './runnable-name.js';

interface Engagement {
  readonly name: ClusterName;
  readonly cluster: Cluster;
  readonly link: LinkedAbort;
  readonly log: Logger;
}

export class Engagements implements Aware {
  private readonly awares: Aware[] = [];
  private readonly live = new Map<ClusterName, Engagement>();
  private readonly stopped = new AbortController();

  constructor(
    private readonly log: Logger,
    private readonly metrics: MetricsRecorder,
  ) {}

  /** Registers an Aware and engages it with every cluster engaged so far (errors are logged per cluster). */
  addAware(aware: Aware): void {
    if (this.stopped.signal.aborted) throw new ManagerStoppedError('add a runnable');
    this.awares.push(aware);
    for (const e of this.live.values()) {
      if (e.link.signal.aborted) continue;
      aware.engage(e.link.signal, e.name, e.cluster).catch((err: unknown) => {
        e.log.error('engaging a late-added runnable with the cluster failed', err, { runnable: runnableName(aware) });
      });
    }
  }

  async engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    if (this.stopped.signal.aborted) throw new ManagerStoppedError(`engage cluster ${JSON.stringify(name)}`);
    if (signal.aborted) return;
    const present = this.live.get(name);
    if (present && present.cluster === cluster && !present.link.signal.aborted) return;
    const log = this.log.with({ cluster: name });
    this.metrics.clusterEngaged?.(name);
    const engagement: Engagement = { name, cluster, link: linkedAbort(signal, this.stopped.signal), log };
    // Register the successor before ending the old engagement, so the old one's cleanup sees it was replaced.
    this.live.set(name, engagement);
    if (present) {
      log.info('replacing the engaged cluster with a new instance');
      present.link.abort();
    }
    this.report();
    engagement.link.signal.addEventListener(
      'abort',
      () => {
        if (this.live.get(name) !== engagement) return; // replaced: the successor owns the name now
        this.live.delete(name);
        log.info('cluster disengaged');
        this.metrics.forgetCluster(name);
        this.report();
      },
      { once: true },
    );

    log.info('engaging cluster');
    const failures: { runnable: string; error: unknown }[] = [];
    await Promise.all(
      [...this.awares].map(async (aware) => {
        try {
          await aware.engage(engagement.link.signal, name, cluster);
        } catch (error) {
          const runnable = runnableName(aware);
          log.error('runnable failed to engage cluster', error, { runnable });
          failures.push({ runnable, error });
        }
      }),
    );
    if (failures.length > 0) throw new EngageFailedError(name, failures);
  }

  /**
   * Resolves true once every Aware that can say so (`waitForDisengaged`) has fully stopped its work for `name`;
   * false if `signal` aborts first. Awares without the method count as stopped.
   */
  async waitForDisengaged(signal: AbortSignal, name: ClusterName): Promise<boolean> {
    const waits = this.awares.map((aware) => aware.waitForDisengaged?.(signal, name) ?? Promise.resolve(true));
    return (await Promise.all(waits)).every(Boolean);
  }

  /** Names of engaged clusters, sorted. */
  names(): ClusterName[] {
    return [...this.live.keys()].sort();
  }

  /** Ends every engagement and refuses new ones (manager shutdown). */
  stop(): void {
    this.stopped.abort();
  }

  private report(): void {
    this.metrics.engagedClusters('manager', this.live.size);
  }
}
