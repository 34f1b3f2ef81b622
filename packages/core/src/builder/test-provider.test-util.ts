/** A provider for integration tests: the test adds clusters over in-memory API servers; built on ClusterSet as real providers are. */
import type { Cluster } from '../cluster/types.js';
import { newCluster } from '../cluster/cluster.js';
import { kubeconfigOf, type Member } from '../controller/fleet.test-util.js';
import { silentLogger } from '../log/logger.js';
import { whenAborted } from '../signal/wait.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware, ProviderContext, ProviderRunnable } from '../multicluster/types.js';
import { ClusterSet } from '../providers/clusters/cluster-set.js';

/** A provider whose clusters the test adds, built on ClusterSet as real providers are. */
export class TestProvider implements ProviderRunnable {
  readonly set = new ClusterSet({ waitCacheTimeoutMs: 10_000 });
  private aware!: Aware;
  private readonly started: Promise<void>;
  private markStarted!: () => void;
  constructor() {
    this.started = new Promise((r) => {
      this.markStarted = r;
    });
  }
  async start(signal: AbortSignal, { aware }: ProviderContext): Promise<void> {
    this.aware = aware;
    this.markStarted();
    await whenAborted(signal);
    await this.set.removeAll();
  }
  async add(name: ClusterName, member: Member): Promise<void> {
    await this.started;
    await this.set.add(name, newCluster(kubeconfigOf(member.server), { name, logger: silentLogger }), this.aware);
  }
  get(name: ClusterName): Promise<Cluster> {
    return this.set.get(name);
  }
  indexField: ClusterSet['indexField'] = (k, f, e) => this.set.indexField(k, f, e);
}
