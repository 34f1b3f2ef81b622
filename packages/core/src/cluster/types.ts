/** The Cluster contract: everything a controller needs to talk to one cluster of the fleet. */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cache, FieldIndexer } from '../cache/types.js';
import type { Client, RESTMapper } from '../client/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';

export interface Cluster {
  /** The name the cluster was created with (informational; a provider may engage it under a prefixed name). */
  readonly name: ClusterName;
  /** The connection details. Treat as read-only. */
  readonly config: KubeConfig;
  /** Reads and writes straight to the API server. */
  readonly client: Client;
  /** Shared informers and the reads they serve. */
  readonly cache: Cache;
  /** Field indexes on the cache (the same object as `cache`). */
  readonly fieldIndexer: FieldIndexer;
  /** Kind ⇄ resource mapping from discovery. */
  readonly restMapper: RESTMapper;
  /** Runs the cache until `signal` aborts, then stops every informer and closes every connection. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves true once every informer started so far has synced, false if `signal` aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean>;
}
