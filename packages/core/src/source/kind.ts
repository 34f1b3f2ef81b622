/**
 * The Kind source: events for one kind of object from each engaged cluster's shared informer. `kind()` makes a
 * MultiClusterSource; the controller asks it for a per-cluster Source on every engagement. A per-cluster source
 * holds a lease on the informer and a registration on it; when its signal aborts (the cluster is disengaged) it
 * removes the registration and releases the lease, so the informer stops unless another controller still uses it
 * (upstream leaves the informer running forever).
 */
import type { Cluster } from '../cluster/types.js';
import type { InformerLease, Registration, ResourceEventHandler } from '../cache/types.js';
import type {
  CreateEvent, DeleteEvent, EventHandler, RequestQueue, UpdateEvent,
} from '../handler/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import type { ClusterName } from '../multicluster/types.js';
import { kindKey } from '../object/gvk.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import type { Predicate } from '../predicate/types.js';
import { SourceAlreadyStartedError, SourceStartFailedError } from './errors.js';
import { pollUntil } from './poll.js';
import type { MultiClusterSource, Source } from './types.js';

/** Decides whether a source runs on a cluster; false skips the cluster. */
export type ClusterFilter = (name: ClusterName, cluster: Cluster) => boolean;

export interface KindOptions {
  /** Watch metadata only (PartialObjectMetadata): far less memory for large kinds such as Secrets. */
  metadataOnly?: boolean;
  /** Only engage clusters for which this returns true. A filter that throws skips the cluster (and is logged). */
  clusterFilter?: ClusterFilter;
  /** Where failing predicates, handlers and filters are reported. Default: JSON lines on stderr. */
  logger?: Logger;
}

/** A source of events for one kind across the fleet. Immutable: `with()` returns a new source. */
export class KindSource<T extends KubeObject = KubeObject> implements MultiClusterSource {
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
export function kind<T extends KubeObject = KubeObject>(
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
class ClusterKindSource<T extends KubeObject> implements Source {
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
    this.started = new Promise((resolve) => { this.settleStarted = resolve; });
    this.log = logger.with({ cluster: clusterName, kind: kindKey(spec.objectKind) });
  }

  private describe(): string {
    return `kind(${kindKey(this.spec.objectKind)}) for cluster ${JSON.stringify(this.clusterName)}`;
  }

  async start(signal: AbortSignal, queue: RequestQueue): Promise<void> {
    if (this.state !== 'new') throw new SourceAlreadyStartedError(this.describe());
    this.state = 'starting';
    let lease: InformerLease<T>;
    try {
      if (signal.aborted) return this.stopBeforeRunning();
      lease = await this.cluster.cache.acquireInformer<T>(this.spec.objectKind, {
        metadataOnly: this.spec.options.metadataOnly ?? false,
        signal,
      });
    } catch (err) {
      this.stopBeforeRunning();
      if (signal.aborted) return;
      throw new SourceStartFailedError(this.describe(), this.clusterName, err);
    }
    if (signal.aborted) {
      lease.release();
      return this.stopBeforeRunning();
    }
    // Running before registering: the informer may replay its store synchronously inside addEventHandler.
    this.state = 'running';
    const registration = lease.informer.addEventHandler(this.adapter(signal, queue));
    this.registration = registration;
    signal.addEventListener('abort', () => {
      this.state = 'stopped';
      registration.remove();
      lease.release();
    }, { once: true });
    this.settleStarted(true);
  }

  async waitForSync(signal: AbortSignal): Promise<boolean> {
    if (!(await untilAborted(this.started, signal))) return false;
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
  private adapter(signal: AbortSignal, queue: RequestQueue): ResourceEventHandler<T> {
    const { handler, predicates } = this.spec;
    const clusterName = this.clusterName;
    const cluster = this.cluster;
    const live = () => !signal.aborted;
    return {
      onAdd: (object, isInInitialList) => {
        if (!live() || !handler.create) return;
        const event: CreateEvent<T> = { clusterName, cluster, object, isInInitialList };
        if (!this.admit('create', predicates, (p) => p.create?.(event) ?? true, object)) return;
        this.call('create', object, () => handler.create!(event, queue));
      },
      onUpdate: (objectOld, objectNew) => {
        if (!live() || !handler.update) return;
        const event: UpdateEvent<T> = { clusterName, cluster, objectOld, objectNew };
        if (!this.admit('update', predicates, (p) => p.update?.(event) ?? true, objectNew)) return;
        this.call('update', objectNew, () => handler.update!(event, queue));
      },
      onDelete: (object, deleteStateUnknown) => {
        if (!live() || !handler.delete) return;
        const event: DeleteEvent<T> = { clusterName, cluster, object, deleteStateUnknown };
        if (!this.admit('delete', predicates, (p) => p.delete?.(event) ?? true, object)) return;
        this.call('delete', object, () => handler.delete!(event, queue));
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

  private call(type: string, obj: T, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error(`event handler threw on ${type} event`, err, objectFields(obj));
    }
  }
}

function objectFields(obj: KubeObject): Record<string, unknown> {
  return { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
}

/** `started`'s value, or false as soon as `signal` aborts; leaves no listener behind either way. */
function untilAborted(started: Promise<boolean>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    void started.then((running) => {
      signal.removeEventListener('abort', onAbort);
      resolve(running);
    });
  });
}
