/**
 * The Cluster API provider: every CAPI `Cluster` on the management (host) cluster whose control plane is initialized
 * becomes a member named `<namespace>/<name>`, reached through the kubeconfig CAPI writes into the
 * `<name>-kubeconfig` Secret (key `value`). A rotated kubeconfig re-engages the cluster; a deleted or deleting
 * Cluster, or one whose Secret disappears, is disengaged. Kubeconfigs are untrusted input (core's policy rules).
 */
import { ClusterEngager, EngagerProvider } from '@multicluster-runtime/core';
import {
  ProviderConfigError,
  absentCluster,
  desiredFromKubeconfig,
  notReadyCluster,
  refusedCluster,
  checkProviderOptions,
  hostClusterRule,
} from '@multicluster-runtime/core/providers';
import { anyString, func, nonEmptyString } from '@multicluster-runtime/core/options';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { Cluster, ClusterName, KubeObject, KubeconfigPolicy, ObjectKind, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions, DesiredCluster } from '@multicluster-runtime/core/providers';
import { controlPlaneInitialized, type CapiApiVersion, type ReadinessCheck } from './readiness.js';

export interface CapiProviderOptions extends ClusterConnectionOptions {
  /** The Cluster API version to watch. Default `cluster.x-k8s.io/v1beta2`. */
  apiVersion?: CapiApiVersion;
  /** Only Clusters in this namespace. Default: all namespaces. */
  namespace?: string;
  /** When a Cluster is engaged. Default: its control plane is initialized. */
  isReady?: ReadinessCheck;
  /** What the kubeconfigs may do beyond inline credentials. Default: nothing. */
  policy?: KubeconfigPolicy;
  /** The management cluster. Default: the manager's local cluster. */
  hostCluster?: Cluster;
}

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

const secretKind: ObjectKind = { apiVersion: 'v1', kind: 'Secret' };
const kubeconfigSuffix = '-kubeconfig';

/** `<namespace>/<name>`: the fleet name of a CAPI cluster. */
export function capiClusterName(namespace: string, name: string): ClusterName {
  return `${namespace}/${name}`;
}

/**
 * Cluster API workload clusters as a fleet: each `Cluster` whose control plane is initialized, named
 * `<namespace>/<name>`, reached through its `<name>-kubeconfig` Secret.
 */
export class CapiProvider extends EngagerProvider {
  private readonly clusterKind: ObjectKind;
  private readonly isReady: ReadinessCheck;

  constructor(private readonly options: CapiProviderOptions = {}) {
    super('CapiProvider', new ClusterEngager('capi', options));
    checkProviderOptions(this.providerName, options, {
      apiVersion: nonEmptyString,
      namespace: anyString,
      isReady: func,
      hostCluster: hostClusterRule,
    });
    this.clusterKind = { apiVersion: options.apiVersion ?? 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' };
    this.isReady = options.isReady ?? controlPlaneInitialized;
  }

  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    const host = this.options.hostCluster ?? context.localCluster;
    if (!host) {
      throw new ProviderConfigError('CapiProvider', 'no management cluster: start it from a manager or pass options.hostCluster');
    }
    if (signal.aborted) return;
    this.engager.begin(context.aware, signal);
    const clusters = await host.cache.acquireInformer(this.clusterKind, { signal });
    const secrets = await host.cache.acquireInformer<SecretObject>(secretKind, { signal });
    const recompute = (namespace: string | undefined, name: string | undefined): void => {
      if (!namespace || !name || (this.options.namespace && namespace !== this.options.namespace)) return;
      const desired = this.desired(clusters.informer.get(namespace, name), secrets.informer.get(namespace, `${name}${kubeconfigSuffix}`));
      this.engager.wish(capiClusterName(namespace, name), desired);
    };
    const fromSecret = (secret: SecretObject): void => {
      const name = secret.metadata.name;
      if (name?.endsWith(kubeconfigSuffix)) recompute(secret.metadata.namespace, name.slice(0, -kubeconfigSuffix.length));
    };
    const registrations = [
      clusters.informer.addEventHandler({
        onAdd: (c) => recompute(c.metadata.namespace, c.metadata.name),
        onUpdate: (_o, c) => recompute(c.metadata.namespace, c.metadata.name),
        onDelete: (c) => recompute(c.metadata.namespace, c.metadata.name),
      }),
      secrets.informer.addEventHandler({
        onAdd: fromSecret,
        onUpdate: (_o, s) => fromSecret(s),
        onDelete: fromSecret,
      }),
    ];
    this.log.info('watching Cluster API clusters', {
      apiVersion: this.clusterKind.apiVersion,
      namespace: this.options.namespace ?? '(all)',
    });
    try {
      await whenAborted(signal);
    } finally {
      for (const r of registrations) r.remove();
      clusters.release();
      secrets.release();
    }
  }

  private desired(cluster: KubeObject | undefined, secret: SecretObject | undefined): DesiredCluster {
    if (!cluster || cluster.metadata.deletionTimestamp) return absentCluster;
    let ready: boolean;
    try {
      ready = this.isReady(cluster);
    } catch (err) {
      this.log.error('readiness check threw; treating the cluster as not ready', err, { cluster: cluster.metadata.name });
      ready = false;
    }
    if (!ready) {
      return notReadyCluster(this.options.isReady ? 'options.isReady says not ready' : 'the control plane is not initialized yet');
    }
    const encoded = secret?.data?.['value'];
    if (!secret || secret.metadata.deletionTimestamp) {
      return refusedCluster('invalid', `Secret ${cluster.metadata.name}${kubeconfigSuffix} not found`);
    }
    if (!encoded) return refusedCluster('invalid', `Secret ${secret.metadata.name} has no "value" key`);
    return desiredFromKubeconfig(Buffer.from(encoded, 'base64').toString('utf8'), this.options.policy);
  }
}
