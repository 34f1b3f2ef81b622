/**
 * NamespaceProvider: the namespaces of one cluster as a fleet. Every namespace (optionally only those a label selector
 * matches) is a member named after it, whose client, cache, field indexes and event recorders see and write only that
 * namespace, so a multi-cluster controller can be developed, demoed and tested against one cluster. Members share the
 * host's connections and its informers (one per kind, split by namespace as events arrive), so a member costs no
 * connection and no watch. A namespace that is deleted, terminating or no longer selected is disengaged; a failed
 * engagement is retried with backoff. Cluster-scoped kinds are refused in members (NamespaceScopeError, 403).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ClusterNotFoundError,
  newCluster,
  silentLogger,
  type Aware,
  type Cluster,
  type IndexerFunc,
  type KubeObject,
  type Logger,
  type ObjectKind,
  type ProviderContext,
  type ProviderRunnable,
} from '@multicluster-runtime/core';
import { type Informer } from '@multicluster-runtime/core/cache';
import {
  parseLabelSelector,
  labelSelectorFromObject,
  type LabelSelector,
  type LabelSelectorObject,
} from '@multicluster-runtime/core/labels';
import { ClusterSet, ProviderAlreadyStartedError, ProviderConfigError, describeError } from '@multicluster-runtime/core/providers';
import { whenAborted } from '@multicluster-runtime/core/signal';
import { anyValue, checkOptions, nested, positiveMs, withMethods, type Shape } from '@multicluster-runtime/core/options';
import { NamespacedCluster } from './namespaced-cluster.js';
import { SharedCache } from './shared-cache.js';

const NAMESPACES: ObjectKind = { apiVersion: 'v1', kind: 'Namespace' };

/** Options of NamespaceProvider: which namespaces, from which cluster, and how engagements wait and retry. */
export interface NamespaceProviderOptions {
  /**
   * Only namespaces whose labels match: a selector string (`team=a,env!=prod`), a map of equalities, or a
   * metav1.LabelSelector. Default: every namespace.
   */
  labelSelector?: string | Readonly<Record<string, string>> | LabelSelectorObject;
  /** The cluster whose namespaces are the fleet. Default: the manager's local (host) cluster, whose cache members share. */
  config?: KubeConfig;
  /** How long an engagement waits for the shared cache to sync before it is retried. Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** Backoff between retries of a failed engagement. Defaults: 500 ms doubling to 30 s. */
  retry?: { initialMs?: number; maxMs?: number };
  /** Default: the manager's logger. */
  logger?: Logger;
}

/** What each option must be (the selector is parsed in the constructor, with its own message). */
const optionRules: Shape<NamespaceProviderOptions> = {
  labelSelector: anyValue,
  config: withMethods('a KubeConfig', ['getCurrentCluster']),
  waitCacheTimeoutMs: positiveMs,
  retry: nested<NonNullable<NamespaceProviderOptions['retry']>>({ initialMs: positiveMs, maxMs: positiveMs }),
  logger: withMethods('a Logger', ['debug', 'info', 'warn', 'error', 'with']),
};

/** A Namespace as the provider reads it. */
type NamespaceObject = KubeObject & { status?: { phase?: string } };

interface Retry {
  failures: number;
  timer?: NodeJS.Timeout;
}

/** The namespaces of one cluster as a fleet: each selected namespace is a member named after it (see the module comment). */
export class NamespaceProvider implements ProviderRunnable {
  private readonly clusters: ClusterSet;
  private readonly selector: LabelSelector;
  private log: Logger;
  private started = false;
  private stopped = false;
  private aware: Aware | undefined;
  private shared: SharedCache | undefined;
  private namespaces: Informer<NamespaceObject> | undefined;
  private readonly chains = new Map<string, Promise<void>>();
  private readonly retries = new Map<string, Retry>();

  constructor(private readonly options: NamespaceProviderOptions = {}) {
    checkOptions(options, optionRules, (message) => new ProviderConfigError('NamespaceProvider', message), { prefix: 'options.' });
    try {
      const s = options.labelSelector;
      this.selector =
        s !== null && typeof s === 'object' && ('matchLabels' in s || 'matchExpressions' in s)
          ? labelSelectorFromObject(s)
          : parseLabelSelector((s ?? '') as string | Record<string, string>);
    } catch (err) {
      throw new ProviderConfigError('NamespaceProvider', `labelSelector: ${describeError(err)}`);
    }
    this.log = (options.logger ?? silentLogger).with({ provider: 'namespace' });
    this.clusters = new ClusterSet({
      waitCacheTimeoutMs: options.waitCacheTimeoutMs ?? 30_000,
      ...(options.logger ? { logger: this.log } : {}),
      owner: 'namespace',
    });
  }

  /** Follows the namespaces until `signal` aborts, then disengages every member. */
  async start(signal: AbortSignal, context: ProviderContext): Promise<void> {
    if (this.started) throw new ProviderAlreadyStartedError('NamespaceProvider');
    this.started = true;
    if (!this.options.logger) this.log = context.logger.with({ provider: 'namespace' });
    this.clusters.useContext({ logger: this.log, metrics: context.metrics });
    this.aware = context.aware;
    const own = this.options.config ? newCluster(this.options.config, { name: 'namespace-provider-host', logger: this.log }) : undefined;
    const host = own ?? context.localCluster;
    if (!host)
      throw new ProviderConfigError('NamespaceProvider', 'no cluster to read namespaces from: give options.config, or run it in a manager');
    const running = own?.start(signal);
    this.shared = new SharedCache(host, this.log);
    this.log.info('watching namespaces', { selector: this.selector.toString() || '(all)' });
    try {
      this.namespaces = await host.cache.getInformer<NamespaceObject>(NAMESPACES);
      const registration = this.namespaces.addEventHandler({
        onAdd: (ns) => this.converge(ns.metadata.name ?? ''),
        onUpdate: (_old, ns) => this.converge(ns.metadata.name ?? ''),
        onDelete: (ns) => this.converge(ns.metadata.name ?? ''),
      });
      await whenAborted(signal);
      registration.remove();
    } finally {
      this.stopped = true;
      for (const retry of this.retries.values()) clearTimeout(retry.timer);
      this.retries.clear();
      await Promise.all(this.chains.values());
      await this.clusters.removeAll();
      await running;
    }
  }

  /** The engaged member named `name` (a namespace); throws ClusterNotFoundError if it is not engaged. */
  get(name: string): Promise<Cluster> {
    if (!this.clusters.has(name)) return Promise.reject(new ClusterNotFoundError(name));
    return this.clusters.get(name);
  }

  /** Registers the index on every member, now and later (once on the shared host cache). */
  indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    return this.clusters.indexField(kind, field, extract);
  }

  /** The engaged members' names. */
  names(): string[] {
    return this.clusters.names();
  }

  /** Whether the namespace should be a member now: it exists, is not going away, and is selected. */
  private wanted(name: string): boolean {
    const ns = this.namespaces?.get('', name);
    return (
      ns !== undefined && !ns.metadata.deletionTimestamp && ns.status?.phase !== 'Terminating' && this.selector.matches(ns.metadata.labels)
    );
  }

  /** Converges one namespace, after whatever was under way for it. */
  private converge(name: string): void {
    if (this.stopped || name === '') return;
    const next = (this.chains.get(name) ?? Promise.resolve()).then(() => this.step(name));
    this.chains.set(name, next);
    void next.finally(() => {
      if (this.chains.get(name) === next) this.chains.delete(name);
    });
  }

  private async step(name: string): Promise<void> {
    if (this.stopped) return;
    const wanted = this.wanted(name);
    const engaged = this.clusters.has(name);
    if (!wanted) {
      this.clearRetry(name);
      if (engaged) {
        await this.clusters.remove(name);
        this.log.info('namespace disengaged', { namespace: name });
      }
      return;
    }
    if (engaged) return;
    try {
      await this.clusters.add(name, new NamespacedCluster(name, this.shared!, this.log), this.aware);
      this.clearRetry(name);
      this.log.info('namespace engaged', { namespace: name });
    } catch (err) {
      this.scheduleRetry(name, err);
    }
  }

  private scheduleRetry(name: string, err: unknown): void {
    const retry = this.retries.get(name) ?? { failures: 0 };
    retry.failures++;
    const delay = Math.min((this.options.retry?.initialMs ?? 500) * 2 ** (retry.failures - 1), this.options.retry?.maxMs ?? 30_000);
    this.log.warn('namespace engagement failed, retrying', {
      namespace: name,
      error: describeError(err),
      retryInMs: delay,
      failures: retry.failures,
    });
    clearTimeout(retry.timer);
    retry.timer = setTimeout(() => this.converge(name), delay);
    retry.timer.unref();
    this.retries.set(name, retry);
  }

  private clearRetry(name: string): void {
    clearTimeout(this.retries.get(name)?.timer);
    this.retries.delete(name);
  }
}
