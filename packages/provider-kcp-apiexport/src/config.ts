/** Kubeconfigs derived from the export workspace's: the same user and CA, another server URL. */
import type { Cluster } from '@multicluster-runtime/core';
import { ApiExportProviderConfigError } from './errors.js';

type KubeConfig = Cluster['config'];

/**
 * A copy of `base` whose current cluster points at `server`. The copy is made with `base`'s own class, so the
 * provider works with whichever client-node instance the caller loaded.
 */
export function withServer(base: KubeConfig, server: string): KubeConfig {
  const current = base.getCurrentCluster();
  if (!current) throw new ApiExportProviderConfigError('the export kubeconfig has no current context or its cluster is missing');
  const Ctor = base.constructor as new () => KubeConfig;
  const copy = new Ctor();
  copy.loadFromOptions({
    clusters: base.clusters.map((c) => (c.name === current.name ? { ...c, server } : c)),
    users: base.users,
    contexts: base.contexts,
    currentContext: base.getCurrentContext(),
  });
  return copy;
}
