/**
 * The controller builder: `controllerManagedBy(mgr).for(kind).owns(kind).watches(kind, handler).complete(r)`.
 * It turns each watch into a Kind source, runs it on the local cluster and/or on every provider cluster as the
 * engage options say, builds the controller and adds it to the manager. Errors are reported at build time, as in
 * controller-runtime, and name the call to fix.
 */
import { Controller, type ControllerOptions } from '../controller/controller.js';
import { enqueueRequestForObject } from '../handler/enqueue-for-object.js';
import { enqueueRequestForOwner } from '../handler/enqueue-for-owner.js';
import type { EventHandler } from '../handler/types.js';
import type { Logger } from '../log/logger.js';
import type { Manager } from '../manager/types.js';
import { LOCAL_CLUSTER } from '../fleet/cluster-name.js';
import { kindKey } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKind } from '../object/types.js';
import type { Predicate } from '../predicate/types.js';
import type { ReconcileFunc, Reconciler } from '../reconcile/types.js';
import { kind } from '../source/kind.js';
import type { Source } from '../source/types.js';
import {
  AlreadyBuiltError,
  DuplicateControllerNameError,
  ForCalledTwiceError,
  MissingNameError,
  MissingReconcilerError,
  NoWatchesError,
  OwnsWithoutForError,
  WatchEngagesNothingError,
} from './errors.js';
import { mergeWatchOptions, resolveEngagement, type OwnsOptions, type WatchOptions } from './options.js';

/** Controller options the builder passes through (the reconciler comes from `complete`). */
export type BuilderControllerOptions = Omit<ControllerOptions, 'reconciler' | 'onClusterNotFound' | 'metrics'>;

/** Controller names taken per manager: a second controller of the same kind must be named explicitly. */
const namesByManager = new WeakMap<Manager, Set<string>>();

interface WatchSpec {
  readonly what: string;
  readonly objectKind: ObjectKind;
  readonly handler: EventHandler;
  readonly options: WatchOptions;
}

/**
 * Builds a controller and registers it with the manager (controller-runtime's builder): `for` the kind it
 * reconciles, `owns` kinds whose owner it enqueues, `watches` anything else, `complete` with the reconciler.
 * Get one from {@link controllerManagedBy}.
 */
export class Builder {
  private name: string | undefined;
  private forSpec: { objectKind: ObjectKind; options: WatchOptions } | undefined;
  private readonly forErrors: Error[] = [];
  private readonly owned: { objectKind: ObjectKind; options: OwnsOptions }[] = [];
  private readonly watched: WatchSpec[] = [];
  private readonly rawSources: Source[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private controllerOptions: BuilderControllerOptions = {};
  private clusterNotFoundWrapper = true;
  private built = false;

  constructor(private readonly mgr: Manager) {}

  /** The controller's name (logs, metrics). Default: the `for()` kind in lower case. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /** The primary kind: its events reconcile the object itself. Call once. */
  for<T extends KubeObjectLike = KubeObject>(objectKind: ObjectKind, ...options: WatchOptions<T>[]): this {
    const merged = mergeWatchOptions(options as unknown as WatchOptions[]);
    if (this.forSpec) this.forErrors.push(new ForCalledTwiceError(kindKey(this.forSpec.objectKind), kindKey(objectKind)));
    else this.forSpec = { objectKind, options: merged };
    return this;
  }

  /** A kind the primary kind owns: a change to one reconciles its owner (the controlling owner unless told otherwise). */
  owns<T extends KubeObjectLike = KubeObject>(objectKind: ObjectKind, ...options: OwnsOptions<T>[]): this {
    this.owned.push({ objectKind, options: mergeWatchOptions(options as unknown as OwnsOptions[]) });
    return this;
  }

  /** Any kind, mapped to requests by `handler` (which may enqueue for other clusters: cross-cluster enqueue). */
  watches<T extends KubeObjectLike = KubeObject>(objectKind: ObjectKind, handler: EventHandler<T>, ...options: WatchOptions<T>[]): this {
    this.watched.push({
      what: `watches(${kindKey(objectKind)})`,
      objectKind,
      handler: handler as unknown as EventHandler,
      options: mergeWatchOptions(options as unknown as WatchOptions[]),
    });
    return this;
  }

  /** A ready-made source watched once, as is (no engage options, no event filters). */
  watchesRawSource(source: Source): this {
    this.rawSources.push(source);
    return this;
  }

  /** Predicates applied to every watch (not to raw sources). */
  withEventFilter<T extends KubeObjectLike = KubeObject>(...predicates: Predicate<T>[]): this {
    this.globalPredicates.push(...(predicates as unknown as Predicate[]));
    return this;
  }

  /** Controller options (workers, rate limiter, cache-sync timeout, …); merged over earlier calls. */
  withOptions(options: BuilderControllerOptions): this {
    this.controllerOptions = { ...this.controllerOptions, ...options };
    return this;
  }

  /**
   * On (default): a ClusterNotFoundError from the reconciler drops the request, since its cluster is gone and
   * retrying would hot-loop. Off: it is retried with backoff like any error.
   */
  withClusterNotFoundWrapper(enabled = true): this {
    this.clusterNotFoundWrapper = enabled;
    return this;
  }

  /** Builds the controller, adds it to the manager and returns it. */
  build(reconciler: Reconciler | ReconcileFunc): Controller {
    if (!reconciler || (typeof reconciler !== 'function' && typeof reconciler.reconcile !== 'function')) {
      throw new MissingReconcilerError();
    }
    const [forError] = this.forErrors;
    if (forError) throw forError;
    const name = this.name ?? this.forSpec?.objectKind.kind.toLowerCase();
    if (!name) throw new MissingNameError();
    if (this.built) throw new AlreadyBuiltError(name);
    const taken = namesByManager.get(this.mgr) ?? new Set<string>();
    if (taken.has(name)) throw new DuplicateControllerNameError(name);
    const forSpec = this.forSpec;
    const [firstOwned] = this.owned;
    if (firstOwned && !forSpec) throw new OwnsWithoutForError(kindKey(firstOwned.objectKind));
    const logger = (this.controllerOptions.logger ?? this.mgr.logger).with({
      ...(forSpec ? { controllerKind: forSpec.objectKind.kind } : {}),
    });
    const watches = this.watchSpecs(logger.with({ controller: name }));
    if (watches.length === 0 && this.rawSources.length === 0) throw new NoWatchesError(name);

    const hasProvider = this.mgr.getProvider() !== undefined;
    const plans = watches.map((w) => ({ w, where: resolveEngagement(w.options, hasProvider) }));
    for (const { w, where } of plans) if (!where.local && !where.providerClusters) throw new WatchEngagesNothingError(w.what);

    const controller = new Controller(name, {
      ...this.controllerOptions,
      logger,
      metrics: this.mgr.metrics,
      reconciler,
      onClusterNotFound: this.clusterNotFoundWrapper ? 'drop' : 'retry',
    });
    for (const { w, where } of plans) {
      const source = kind(w.objectKind, w.handler, ...this.globalPredicates, ...(w.options.predicates ?? [])).with({
        metadataOnly: w.options.metadataOnly ?? false,
        ...(w.options.clusterFilter ? { clusterFilter: w.options.clusterFilter } : {}),
        logger: logger.with({ controller: name, watch: w.what }),
      });
      if (where.local) controller.watch(source.forClusterUnfiltered(LOCAL_CLUSTER, this.mgr.getLocalCluster()));
      if (where.providerClusters) controller.multiClusterWatch(source);
    }
    for (const raw of this.rawSources) controller.watch(raw);
    this.built = true;
    this.mgr.add(controller);
    taken.add(name);
    namesByManager.set(this.mgr, taken);
    return controller;
  }

  /** Builds the controller and adds it to the manager. */
  complete(reconciler: Reconciler | ReconcileFunc): void {
    this.build(reconciler);
  }

  private watchSpecs(logger: Logger): WatchSpec[] {
    const specs: WatchSpec[] = [];
    const forSpec = this.forSpec;
    if (forSpec) {
      specs.push({
        what: `for(${kindKey(forSpec.objectKind)})`,
        objectKind: forSpec.objectKind,
        handler: enqueueRequestForObject({ logger }),
        options: forSpec.options,
      });
      for (const o of this.owned) {
        specs.push({
          what: `owns(${kindKey(o.objectKind)})`,
          objectKind: o.objectKind,
          handler: enqueueRequestForOwner(forSpec.objectKind, { onlyController: o.options.onlyController ?? true, logger }),
          options: o.options,
        });
      }
    }
    specs.push(...this.watched);
    return specs;
  }
}

/** Starts building a controller that `mgr` runs. */
export function controllerManagedBy(mgr: Manager): Builder {
  return new Builder(mgr);
}
