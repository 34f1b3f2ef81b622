/**
 * One logical cluster as a fleet member: a `Cluster` whose client writes to `<endpoint>/clusters/<lc>` over the
 * endpoint's shared connection pool and whose cache is the endpoint's wildcard cache scoped to this cluster. Starting
 * it starts nothing of its own: it lives until its engagement ends.
 */
import type { Cluster, RESTMapper } from '@multicluster-runtime/core';
import { ApiClient, whenAborted } from '@multicluster-runtime/core';
import type { PrefixedTransport } from './prefixed-transport.js';
import { ScopedCache } from './scoped-cache.js';
import type { WildcardCache } from './wildcard-cache.js';

export class LogicalCluster implements Cluster {
  readonly client: ApiClient;
  readonly cache: ScopedCache;

  constructor(
    readonly name: string,
    readonly config: Cluster['config'],
    transport: PrefixedTransport,
    readonly restMapper: RESTMapper,
    shared: WildcardCache,
  ) {
    this.client = new ApiClient(transport, restMapper);
    this.cache = new ScopedCache(shared, name);
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
