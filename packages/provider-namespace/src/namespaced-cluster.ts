/**
 * One namespace as a fleet member: a Cluster whose client, API reader, cache, field indexes and event recorders are
 * the host cluster's, confined to the namespace (see scope.ts). It owns no connection and no informer, so a
 * thousand members cost a thousand small objects; starting it starts nothing, and it lives until its engagement ends.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cache, Client, Cluster, EventRecorder, Logger, Reader } from '@multicluster-runtime/core';
import type { RESTMapper } from '@multicluster-runtime/core/client';
import { whenAborted } from '@multicluster-runtime/core/signal';
import { NamespaceScopeError } from './errors.js';
import { NamespaceScope } from './scope.js';
import { NamespacedClient, NamespacedReader } from './scoped-client.js';
import { NamespacedCache, type SharedCache } from './shared-cache.js';

/** One engaged namespace: the host cluster's client, reader, cache and recorders, confined to the namespace. */
export class NamespacedCluster implements Cluster {
  readonly client: Client;
  readonly apiReader: Reader;
  readonly cache: Cache;
  readonly fieldIndexer: Cache;
  readonly restMapper: RESTMapper;
  readonly config: KubeConfig;

  /** @internal Made by the NamespaceProvider for each engaged namespace. */
  constructor(
    readonly name: string,
    private readonly shared: SharedCache,
    private readonly log: Logger,
  ) {
    const host = shared.host;
    const scope = new NamespaceScope(name, host.restMapper);
    this.config = host.config;
    this.restMapper = host.restMapper;
    this.client = new NamespacedClient(host.client, scope);
    this.apiReader = new NamespacedReader(host.apiReader, scope);
    this.cache = new NamespacedCache(shared, scope);
    this.fieldIndexer = this.cache;
  }

  /** The host's recorder, for objects of this namespace only: an Event about anything else is dropped and logged. */
  getEventRecorderFor(reportingController: string): EventRecorder {
    const recorder = this.shared.host.getEventRecorderFor(reportingController);
    return {
      event: (regarding, type, reason, note, options) => {
        const namespace = regarding.metadata?.namespace;
        if (namespace === this.name) return recorder.event(regarding, type, reason, note, options);
        const refused = new NamespaceScopeError(
          this.name,
          `an Event about ${regarding.kind ?? 'an object'} in namespace ${JSON.stringify(namespace ?? '')}`,
        );
        this.log.error('event not recorded', refused, { namespace: this.name, reason });
      },
    };
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return this.cache.waitForCacheSync(signal);
  }

  /** Nothing of its own to run: lives until the engagement ends. */
  start(signal: AbortSignal): Promise<void> {
    return whenAborted(signal);
  }
}
