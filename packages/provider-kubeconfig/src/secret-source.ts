/**
 * Where the Secret provider reads kubeconfig Secrets from. `namespace` (the default) lists and watches only the
 * labelled Secrets of one namespace, server-side, so the operator needs nothing beyond `list`/`watch` on Secrets in
 * that namespace and keeps only those Secrets in memory. `host-cache` shares the host cluster's cache informer for
 * Secrets instead: one watch fewer when the host cache watches Secrets anyway, at the price of cluster-wide Secret
 * access and every Secret of the cluster in memory.
 */
import { SharedInformer, resourceListWatcher } from '@multicluster-runtime/core/cache';
import { Transport } from '@multicluster-runtime/core/client';
import type { Cluster, KubeObject, LabelSelector, Logger, ObjectKind } from '@multicluster-runtime/core';
import type { Informer } from '@multicluster-runtime/core/cache';

/**
 * How Secrets are watched: a watch of the one namespace, or the host cache (cluster-wide Secret access).
 */
export type SecretWatchMode = 'namespace' | 'host-cache';

export interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

export interface SecretSource {
  readonly informer: Informer<SecretObject>;
  /** Stops watching (for the shared informer: lets go of it) and closes what was opened. */
  close(): Promise<void>;
}

const secretKind: ObjectKind = { apiVersion: 'v1', kind: 'Secret' };

/** Opens the Secret informer; rejects if `signal` aborts first or the host cannot map Secrets. */
export async function openSecretSource(
  host: Cluster,
  options: { mode: SecretWatchMode; namespace: string; selector: LabelSelector; logger: Logger },
  signal: AbortSignal,
): Promise<SecretSource> {
  if (options.mode === 'host-cache') {
    const lease = await host.cache.acquireInformer<SecretObject>(secretKind, { signal });
    return {
      informer: lease.informer,
      close: () => {
        lease.release();
        return Promise.resolve();
      },
    };
  }
  const mapping = await host.restMapper.mapping(secretKind, { signal });
  // Its own connection pool: the host cluster's is private to it, and this one closes with the provider.
  const transport = Transport.forConfig(host.config);
  const informer = new SharedInformer<SecretObject>({
    kind: secretKind,
    source: resourceListWatcher(transport, mapping, { namespace: options.namespace, labelSelector: options.selector.toString() }),
    logger: options.logger,
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal).catch((err: unknown) => options.logger.error('kubeconfig Secret informer failed', err));
  return {
    informer,
    close: async () => {
      stop.abort();
      await running;
      await transport.close();
    },
  };
}
