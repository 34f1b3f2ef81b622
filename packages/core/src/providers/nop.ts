/** A provider with no clusters: runs until stopped, knows no cluster, ignores indexes. Useful as a placeholder. */
import type { IndexerFunc } from '../cache/types.js';
import type { Cluster } from '../cluster/types.js';
import { whenAborted } from '../signal/wait.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { ProviderContext, ProviderRunnable } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';

export class NopProvider implements ProviderRunnable {
  async start(signal: AbortSignal, _context: ProviderContext): Promise<void> {
    await whenAborted(signal);
  }

  get(name: ClusterName): Promise<Cluster> {
    return Promise.reject(new ClusterNotFoundError(name));
  }

  async indexField(_kind: ObjectKind, _field: string, _extract: IndexerFunc): Promise<void> {}
}
