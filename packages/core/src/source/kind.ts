/**
 * The Kind source: events for one kind of object from each engaged cluster's shared informer. `kind()` makes a
 * MultiClusterSource; the controller asks it for a per-cluster Source on every engagement. A per-cluster source holds a
 * lease on the informer and a registration on it; when its signal aborts (the cluster is disengaged) it removes the
 * registration and releases the lease, so the informer stops unless another controller still uses it: a fleet whose
 * clusters come and go does not accumulate watches. A cluster that cannot serve the kind yet (CRD not installed) is
 * retried with backoff instead of failing the engagement.
 */
import { CacheStoppedError } from '../cache/errors.js';
import type { Cluster } from '../cluster/types.js';
import type { InformerLease, Registration, ResourceEventHandler } from '../cache/types.js';
import type { CreateEvent, DeleteEvent, EventHandler, RequestQueue, UpdateEvent } from '../handler/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import { orAborted, sleep } from '../signal/wait.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { kindKey } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKind } from '../object/types.js';
import type { Predicate } from '../predicate/types.js';
import { SourceAlreadyStartedError, SourceStartFailedError } from './errors.js';
import { pollUntil } from './poll.js';
import type { MultiClusterSource, Source } from './types.js';

/** Decides whether a source runs on a cluster; false skips the cluster. */
export type ClusterFilter = (name: ClusterName, cluster: Cluster) => boolean;

/** Options of a Kind source: metadata only or whole objects, which clusters, the logger, and retries while the kind is not served. */
export interface KindOptions {
  /** Watch metadata only (PartialObjectMetadata): far less memory for large kinds such as Secrets. */
  metadataOnly?: boolean;
  /** Only engage clusters for which this returns true. A filter that throws skips the cluster (and is logged). */
  clusterFilter?: ClusterFilter;
  /** Where failing predicates, handlers and filters are reported. Default: JSON lines on stderr. */
  logger?: Logger;
  /** Backoff between attempts to start in a cluster that cannot serve the kind yet. Default 1 s doubling to 30 s. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
}

/** A source of events for one kind across the fleet. Immutable: `with()` returns a new source. */
export class KindSource<T extends KubeObjectLike = KubeObject> implements MultiClusterSource {
  constructor(
    readonly objectKind: ObjectKind,
    readonly handler: EventHandler<T>,
    readonly predicates: readonly Predicate<T>[] = [],
    readonly options: Readonly<KindOptions> = {},
  ) {}

  /** A copy with `options` merged over this source's options. */
  with(options: KindOptions): KindSource<T> {
    return new KindSource(this.objectKind, this.handler, this.predicates, { ...this.options, ...options });
  }

  /** The source for one cluster, or undefined if the cluster filter rejects it. */
  forCluster(name: ClusterName, cluster: Cluster): Source | undefined {
    const filter = this.options.clusterFilter;
    if (filter) {
      let admitted: boolean;
      try {
        admitted = filter(name, cluster);
      } catch (err) {
        this.logger().error('cluster filter threw; skipping the cluster', err, { cluster: name, kind: kindKey(this.objectKind) });
        admitted = false;
      }
      if (!admitted) return undefined;
    }
    return this.forClusterUnfiltered(name, cluster);
  }

  /** The source for one cluster regardless of the cluster filter (the builder's local-cluster watches). */
  forClusterUnfiltered(name: ClusterName, cluster: Cluster): Source {
    return new ClusterKindSource<T>(name, cluster, this, this.logger());
  }

  private logger(): Logger {
    return this.options.logger ?? defaultLogger();
  }
}

/** Watches `objectKind` in every engaged cluster; events that pass every predicate go to `handler`. */
export function kind<T extends KubeObjectLike = KubeObject>(
  objectKind: ObjectKind,
  handler: EventHandler<T>,
  ...predicates: Predicate<T>[]
): KindSource<T> {
  return new KindSource<T>(objectKind, handler, predicates);
}

let sharedDefaultLogger: Logger | undefined;
function defaultLogger(): Logger {
  return (sharedDefaultLogger ??= createLogger({ fields: { component: 'source' } }));
}

type State = 'new' | 'starting' | 'running' | 'stopped';

/** One cluster's share of a KindSource. Serves a single engagement: start it once. */
class ClusterKindSource<T extends KubeObjectLike> implements Source {
  private state: State = 'new';
  private registration: Registration | undefined;
  private readonly started: Promise<boolean>;
  private settleStarted!: (running: boolean) => void;
  private readonly log: Logger;

  constructor(
    private readonly clusterName: ClusterName,
    private readonly cluster: Cluster,
    private readonly spec: KindSource<T>,
    logger: Logger,
  ) {
    this.started = new Promise((resolve) => {
      this.settleStarted = resolve;
    });
    this.log = logger.with({ cluster: clusterName, kind: kindKey(spec.objectKind) });
  }

  private describe(): string {
    return `kind(${kindKey(this.spec.objectKind)}) for cluster ${JSON.stringify(this.clusterName)}`;
  }

  /**
   * Acquires the informer and registers. If the cache cannot provide the informer yet (a CRD not installed in this
   * cluster, discovery failing, RBAC still missing), the failure is logged and acquisition is retried with capped
   * exponential backoff until it works or the signal aborts: one cluster lacking a kind must not fail the whole
   * engagement, and events flow as soon as the kind appears (controller-runtime's Kind source retries likewise).
   */
  async start(signal: AbortSignal, queue: RequestQueue): Promise<void> {
    if (this.state !== 'new') throw new SourceAlreadyStartedError(this.describe());
    this.state = 'starting';
    if (await this.tryStart(signal, queue, 1)) return;
    if (this.state !== 'starting') return;
    this.retry(signal, queue).catch((err: unknown) => {
      this.log.error('source gave up retrying after an unexpected error', err);
      this.stopBeforeRunning();
    });
  }

  private async retry(signal: AbortSignal, queue: RequestQueue): Promise<void> {
    const { initialDelayMs = 1_000, maxDelayMs = 30_000 } = this.spec.options.retry ?? {};
    let delay = initialDelayMs;
    for (let attempt = 2; ; attempt++) {
      // Full jitter in [delay/2, delay): many clusters missing the same CRD do not retry in lockstep.
      if (!(await sleep(delay / 2 + Math.random() * (delay / 2), signal))) return this.stopBeforeRunning();
      if (await this.tryStart(signal, queue, attempt)) return;
      if (this.state !== 'starting') return;
      delay = Math.min(maxDelayMs, delay * 2);
    }
  }

  /** One acquisition attempt; true once running (or stopped because the signal aborted). */
  private async tryStart(signal: AbortSignal, queue: RequestQueue, attempt: number): Promise<boolean> {
    if (signal.aborted) {
      this.stopBeforeRunning();
      return true;
    }
    let lease: InformerLease<T & KubeObject>;
    try {
      lease = await this.cluster.cache.acquireInformer<T & KubeObject>(this.spec.objectKind, {
        metadataOnly: this.spec.options.metadataOnly ?? false,
        signal,
      });
    } catch (err) {
      if (signal.aborted) {
        this.stopBeforeRunning();
        return true;
      }
      if (err instanceof CacheStoppedError) {
        // The cluster is shutting down; its engagement is about to end, nothing to retry.
        this.log.debug('cluster cache stopped before the source could start', { error: err.message });
        this.stopBeforeRunning();
        return true;
      }
      this.log.error('source cannot start yet; retrying with backoff', new SourceStartFailedError(this.describe(), this.clusterName, err), {
        attempt,
      });
      return false;
    }
    if (signal.aborted) {
      lease.release();
      this.stopBeforeRunning();
      return true;
    }
    // Running before registering: the informer may replay its store synchronously inside addEventHandler.
    this.state = 'running';
    const registration = lease.informer.addEventHandler(this.adapter(signal, queue));
    this.registration = registration;
    signal.addEventListener(
      'abort',
      () => {
        this.state = 'stopped';
        registration.remove();
        lease.release();
      },
      { once: true },
    );
    if (attempt > 1) this.log.info('source started after retrying', { attempt });
    this.settleStarted(true);
    return true;
  }

  async waitForSync(signal: AbortSignal): Promise<boolean> {
    if (!(await orAborted(this.started, signal, false))) return false;
    return pollUntil(() => {
      if (this.state === 'stopped') return 'stop';
      return this.registration?.hasSynced() ?? false;
    }, signal);
  }

  private stopBeforeRunning(): void {
    this.state = 'stopped';
    this.settleStarted(false);
  }

  /** Informer callbacks → filtered events → the handler. Nothing a user callback throws escapes. */
  private adapter(signal: AbortSignal, queue: RequestQueue): ResourceEventHandler<T & KubeObject> {
    const { handler, predicates } = this.spec;
    const clusterName = this.clusterName;
    const cluster = this.cluster;
    // Called for every event: without predicates (the common case) an event costs its event object and nothing else.
    const filtered = predicates.length > 0;
    return {
      onAdd: (object, isInInitialList) => {
        if (signal.aborted || !handler.create) return;
        const event: CreateEvent<T> = { clusterName, cluster, object, isInInitialList };
        if (filtered && !this.admit('create', predicates, (p) => p.create?.(event) ?? true, object)) return;
        try {
          handler.create(event, queue);
        } catch (err) {
          this.handlerThrew('create', object, err);
        }
      },
      onUpdate: (objectOld, objectNew) => {
        if (signal.aborted || !handler.update) return;
        const event: UpdateEvent<T> = { clusterName, cluster, objectOld, objectNew };
        if (filtered && !this.admit('update', predicates, (p) => p.update?.(event) ?? true, objectNew)) return;
        try {
          handler.update(event, queue);
        } catch (err) {
          this.handlerThrew('update', objectNew, err);
        }
      },
      onDelete: (object, deleteStateUnknown) => {
        if (signal.aborted || !handler.delete) return;
        const event: DeleteEvent<T> = { clusterName, cluster, object, deleteStateUnknown };
        if (filtered && !this.admit('delete', predicates, (p) => p.delete?.(event) ?? true, object)) return;
        try {
          handler.delete(event, queue);
        } catch (err) {
          this.handlerThrew('delete', object, err);
        }
      },
    };
  }

  /** ANDs the predicates; a predicate that throws drops the event (and is logged) rather than guessing. */
  private admit(type: string, predicates: readonly Predicate<T>[], test: (p: Predicate<T>) => boolean, obj: T): boolean {
    try {
      return predicates.every(test);
    } catch (err) {
      this.log.error(`predicate threw on ${type} event; event dropped`, err, objectFields(obj));
      return false;
    }
  }

  private handlerThrew(type: string, obj: T, err: unknown): void {
    this.log.error(`event handler threw on ${type} event`, err, objectFields(obj));
  }
}

function objectFields(obj: KubeObjectLike): Record<string, unknown> {
  return { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
}
