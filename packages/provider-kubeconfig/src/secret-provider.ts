/**
 * `KubeconfigSecretProvider`: a fleet described by kubeconfig Secrets on the host cluster. Each Secret in the
 * namespace that matches the label selector is a cluster named after the Secret; its kubeconfig (under `key`) is
 * untrusted and loaded through core's policy. The cluster is engaged once its API server answers and its cache has
 * synced, re-engaged when the kubeconfig's connection fingerprint changes (not on label or annotation edits), and
 * disengaged when the Secret, its label or its key goes away or the Secret starts deleting. Secrets are read with a
 * namespaced, label-selected watch (or the host cluster's shared informer, see `watch`); every cluster converges on
 * its own, so one bad or slow kubeconfig never holds up the rest.
 */
import { ClusterEngager, EngagerProvider, parseLabelSelector } from '@multicluster-runtime/core';
import {
  ProviderConfigError,
  absentCluster,
  desiredFromKubeconfig,
  refusedCluster,
  checkProviderOptions,
  hostClusterRule,
} from '@multicluster-runtime/core/providers';
import { anyString, anyValue, either, recordOf } from '@multicluster-runtime/core/options';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { Cluster, KubeconfigPolicy, LabelSelector, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions, DesiredCluster } from '@multicluster-runtime/core/providers';
import { openSecretSource, type SecretObject, type SecretSource, type SecretWatchMode } from './secret-source.js';

/** The label upstream multicluster-runtime puts on kubeconfig Secrets (value `"true"`). */
export const DEFAULT_KUBECONFIG_SECRET_LABEL = 'sigs.k8s.io/multicluster-runtime-kubeconfig';
/** The data key holding the kubeconfig. */
export const DEFAULT_KUBECONFIG_SECRET_KEY = 'kubeconfig';

export interface KubeconfigSecretProviderOptions extends ClusterConnectionOptions {
  /** The namespace holding the kubeconfig Secrets. Required. */
  namespace: string;
  /** Which Secrets are kubeconfigs. Default `{ "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" }`. */
  labelSelector?: string | Record<string, string>;
  /** The data key of the kubeconfig. Default `kubeconfig`. */
  key?: string;
  /** What the kubeconfigs may do beyond inline credentials. Default: nothing (no exec, auth-provider, files, no-TLS). */
  policy?: KubeconfigPolicy;
  /**
   * How Secrets are watched. `namespace` (default): a server-side selected list/watch of the namespace only, so
   * `list`/`watch` on Secrets in that namespace is all the RBAC needed. `host-cache`: share the host cluster's cache
   * informer for Secrets (cluster-wide Secret access; worth it only if the host cache watches Secrets anyway).
   */
  watch?: SecretWatchMode;
  /**
   * The cluster holding the Secrets, already running. Default: the manager's local cluster (the start context's
   * `localCluster`, which a MultiProvider passes on to its members).
   */
  hostCluster?: Cluster;
}

/**
 * Kubeconfig Secrets on the host as a fleet: every labelled Secret in the namespace is a member named after it.
 */
export class KubeconfigSecretProvider extends EngagerProvider {
  readonly namespace: string;
  readonly key: string;
  readonly watch: SecretWatchMode;
  private readonly selector: LabelSelector;

  constructor(private readonly options: KubeconfigSecretProviderOptions) {
    super('KubeconfigSecretProvider', new ClusterEngager('kubeconfig-secrets', options));
    const name = this.providerName;
    checkProviderOptions(name, options, {
      namespace: anyValue,
      labelSelector: either(anyString, recordOf(anyString)),
      key: anyValue,
      watch: anyValue,
      hostCluster: hostClusterRule,
    });
    if (typeof options?.namespace !== 'string' || options.namespace === '') {
      throw new ProviderConfigError(name, 'options.namespace is required: the namespace that holds the kubeconfig Secrets');
    }
    if (options.key !== undefined && (typeof options.key !== 'string' || options.key === '')) {
      throw new ProviderConfigError(name, 'options.key must be a non-empty Secret data key');
    }
    this.namespace = options.namespace;
    this.key = options.key ?? DEFAULT_KUBECONFIG_SECRET_KEY;
    if (options.watch !== undefined && options.watch !== 'namespace' && options.watch !== 'host-cache') {
      throw new ProviderConfigError(name, `options.watch must be "namespace" or "host-cache", got ${JSON.stringify(options.watch)}`);
    }
    this.watch = options.watch ?? 'namespace';
    try {
      this.selector = parseLabelSelector(options.labelSelector ?? { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' });
    } catch (err) {
      throw new ProviderConfigError(name, `options.labelSelector is invalid: ${(err as Error).message}`);
    }
  }

  /** Watches the Secrets and engages their clusters through `context.aware` until `signal` aborts. */
  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    const host = this.options.hostCluster ?? context.localCluster;
    if (!host) {
      throw new ProviderConfigError(
        this.providerName,
        'no host cluster: start it from a manager (it reads Secrets from the local cluster) or pass options.hostCluster',
      );
    }
    if (signal.aborted) return;
    const log = this.log.with({ namespace: this.namespace });
    let source: SecretSource;
    try {
      source = await openSecretSource(host, { mode: this.watch, namespace: this.namespace, selector: this.selector, logger: log }, signal);
    } catch (err) {
      if (signal.aborted) return; // stopped while the informer was being set up
      throw err;
    }
    this.engager.begin(context.aware, signal);
    const registration = source.informer.addEventHandler({
      onAdd: (secret) => this.observe(secret),
      onUpdate: (_old, secret) => this.observe(secret),
      onDelete: (secret) => {
        if (secret.metadata.namespace === this.namespace && secret.metadata.name) this.engager.wish(secret.metadata.name, absentCluster);
      },
    });
    log.info('watching kubeconfig Secrets', { selector: this.selector.toString(), key: this.key, watch: this.watch });
    try {
      await whenAborted(signal);
    } finally {
      registration.remove();
      await source.close();
    }
  }

  private observe(secret: SecretObject): void {
    const name = secret.metadata.name;
    if (secret.metadata.namespace !== this.namespace || !name) return;
    this.engager.wish(name, this.desiredFor(secret));
  }

  private desiredFor(secret: SecretObject): DesiredCluster {
    if (secret.metadata.deletionTimestamp) return absentCluster;
    if (!this.selector.matches(secret.metadata.labels)) return absentCluster;
    const encoded = secret.data?.[this.key];
    if (typeof encoded !== 'string' || encoded === '') {
      return refusedCluster('invalid', `the Secret has no ${JSON.stringify(this.key)} key (or it is empty)`);
    }
    return desiredFromKubeconfig(Buffer.from(encoded, 'base64').toString('utf8'), this.options.policy);
  }
}
