/** Test fixture: a provider of a fixed list of clusters, built on EngagerProvider (so it reports statuses). */
import { KubeConfig } from '@kubernetes/client-node';
import { connectionFingerprint } from '../../kubeconfig/untrusted.js';
import type { ProviderContext } from '../../multicluster/types.js';
import { whenAborted } from '../../signal/wait.js';
import { ClusterEngager } from './cluster-engager.js';
import type { ClusterConnectionOptions } from './connection-options.js';
import type { DesiredCluster } from './desired-cluster.js';
import { EngagerProvider } from './engager-provider.js';

export class ListProvider extends EngagerProvider {
  constructor(
    private readonly members: ReadonlyArray<[string, KubeConfig]>,
    options: ClusterConnectionOptions = {},
  ) {
    super('ListProvider', new ClusterEngager('list', { probeTimeoutMs: 3_000, retry: { initialMs: 60_000, maxMs: 60_000 }, ...options }));
  }

  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    this.engager.begin(context.aware, signal);
    for (const [name, config] of this.members) {
      const desired: DesiredCluster = { kind: 'config', config, fingerprint: connectionFingerprint(config) };
      this.engager.wish(name, desired);
    }
    await whenAborted(signal);
  }
}

/** A kubeconfig for `server` with a token no server knows: enough to try connecting. */
export function kubeconfigAt(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: 'u', token: 'unused' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}
