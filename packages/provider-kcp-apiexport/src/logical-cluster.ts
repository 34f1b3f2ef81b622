/**
 * One logical cluster as a fleet member: a `Cluster` whose client writes to `<endpoint>/clusters/<lc>` over the
 * endpoint's shared connection pool and reads from its cache, the endpoint's wildcard cache scoped to this cluster
 * (`apiReader` reads from the endpoint); its events go into the logical cluster. Starting it starts nothing of its
 * own: it lives until its engagement ends, then flushes its events.
 */
import type { Client, Cluster, EventRecorder } from '@multicluster-runtime/core';
import type { RESTMapper } from '@multicluster-runtime/core/client';
import { ApiClient, newDelegatingClient } from '@multicluster-runtime/core/client';
import { whenAborted } from '@multicluster-runtime/core/signal';
import { EventBroadcaster } from '@multicluster-runtime/core/events';
import type { PrefixedTransport } from './prefixed-transport.js';
import { ScopedCache } from './scoped-cache.js';
import type { WildcardCache } from './wildcard-cache.js';

/**
 * One engaged logical cluster: a Cluster whose reads come from its endpoint's shared wildcard cache, filtered to
 * it, and whose writes go to `/clusters/<name>` on the endpoint.
 */
export class LogicalCluster implements Cluster {
  readonly client: Client;
  readonly apiReader: ApiClient;
  readonly cache: ScopedCache;
  private readonly events: EventBroadcaster;

  /** @internal Made by the provider for each engaged logical cluster. */
  constructor(
    readonly name: string,
    readonly config: Cluster['config'],
    transport: PrefixedTransport,
    readonly restMapper: RESTMapper,
    shared: WildcardCache,
  ) {
    this.apiReader = new ApiClient(transport, restMapper);
    this.cache = new ScopedCache(shared, name);
    this.client = newDelegatingClient({ reader: this.cache, client: this.apiReader });
    this.events = new EventBroadcaster(this.apiReader, { clusterName: name });
  }

  getEventRecorderFor(reportingController: string): EventRecorder {
    return this.events.recorderFor(reportingController);
  }

  get fieldIndexer(): ScopedCache {
    return this.cache;
  }

  /** Lives until the engagement ends, then writes the events still pending into the logical cluster. */
  async start(signal: AbortSignal): Promise<void> {
    await whenAborted(signal);
    await this.events.stop();
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return this.cache.waitForCacheSync(signal);
  }
}
