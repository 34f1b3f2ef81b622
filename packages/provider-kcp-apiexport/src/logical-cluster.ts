/**
 * One logical cluster as a fleet member: a `Cluster` whose client writes to `<endpoint>/clusters/<lc>` over the
 * endpoint's shared connection pool and reads from its cache, the endpoint's wildcard cache scoped to this cluster
 * (`apiReader` reads from the endpoint). Starting it starts nothing of its own: it lives until its engagement ends.
 */
import type { Client, Cluster } from '@multicluster-runtime/core';
import type { RESTMapper } from '@multicluster-runtime/core/client';
import { ApiClient, newDelegatingClient } from '@multicluster-runtime/core/client';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { PrefixedTransport } from './prefixed-transport.js';
import { ScopedCache } from './scoped-cache.js';
import type { WildcardCache } from './wildcard-cache.js';

export class LogicalCluster implements Cluster {
  readonly client: Client;
  readonly apiReader: ApiClient;
  readonly cache: ScopedCache;

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
  }

  get fieldIndexer(): ScopedCache {
    return this.cache;
  }

  start(signal: AbortSignal): Promise<void> {
    return whenAborted(signal);
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return this.cache.waitForCacheSync(signal);
  }
}
