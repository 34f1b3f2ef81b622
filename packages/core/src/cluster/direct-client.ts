/**
 * A client over a cluster that reads from the API server, not the cache: for leader election and sharding Leases,
 * whose reads must be fresh and whose kind should not get a cluster-wide informer.
 */
import { newDelegatingClient } from '../client/delegating-client.js';
import type { Client } from '../client/types.js';
import type { Cluster } from './types.js';

export function directClient(cluster: Pick<Cluster, 'client' | 'apiReader'>): Client {
  return newDelegatingClient({ reader: cluster.apiReader, client: cluster.client });
}
