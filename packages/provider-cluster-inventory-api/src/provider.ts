/**
 * The cluster inventory provider: every ClusterProfile on the hub (the host cluster) whose control plane is healthy
 * becomes a member named `<namespace>/<name>`. It is reached through the first access provider it lists that the
 * operator configured (a credential plugin; see access.ts), or — the legacy strategy — through a kubeconfig Secret
 * labelled for the profile and this consumer. A profile that is deleted, deleting, filtered out or no longer healthy
 * is disengaged; a changed endpoint, CA or plugin invocation re-engages the member. Profiles are untrusted input.
 */
import { ClusterEngager, EngagerProvider, parseLabelSelector } from '@multicluster-runtime/core';
import { everythingSelector } from '@multicluster-runtime/core/labels';
import {
  ProviderConfigError,
  absentCluster,
  checkProviderOptions,
  desiredFromKubeconfig,
  hostClusterRule,
  notReadyCluster,
  refusedCluster,
} from '@multicluster-runtime/core/providers';
import { anyString, anyValue, either, func, nested, nonEmptyString, recordOf } from '@multicluster-runtime/core/options';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { Cluster, KubeObject, KubeconfigPolicy, LabelSelector, ObjectKind, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions, DesiredCluster } from '@multicluster-runtime/core/providers';
import { checkAccessConfig, type AccessConfig } from './access-config.js';
import { accessFor, type KubeConfigFactory } from './access.js';
import {
  clusterProfileKind,
  clusterProfileName,
  controlPlaneHealthy,
  type ClusterProfile,
  type ReadinessCheck,
} from './cluster-profile.js';

/** The legacy strategy: one kubeconfig Secret per profile and consumer, in the profile's namespace. */
export interface KubeconfigSecretStrategy {
  /** This controller's name as the inventory knows it (the `x-k8s.io/cluster-inventory-consumer` label). */
  consumerName: string;
}

export interface ClusterProfileProviderOptions extends ClusterConnectionOptions {
  /**
   * The operator's access providers (the JSON of Go's `--clusterprofile-provider-file`; `loadAccessConfigFile` reads
   * one). Exactly one of `accessConfig` and `kubeconfigSecrets` is required.
   */
  accessConfig?: AccessConfig;
  /** Reach members through labelled kubeconfig Secrets instead (deprecated upstream, kept for existing inventories). */
  kubeconfigSecrets?: KubeconfigSecretStrategy;
  /** With `kubeconfigSecrets`: what the kubeconfigs may do beyond inline credentials. Default: nothing. */
  policy?: KubeconfigPolicy;
  /** Only profiles in this namespace. Default: all namespaces. */
  namespace?: string;
  /** Only profiles with these labels (`env=prod,tier in (a,b)` or `{ env: 'prod' }`). Default: all. */
  labelSelector?: string | Readonly<Record<string, string>>;
  /** When a profile's member is engaged. Default: its `ControlPlaneHealthy` condition is True. */
  isReady?: ReadinessCheck;
  /** The hub. Default: the manager's local cluster. */
  hostCluster?: Cluster;
}

/**
 * The label naming the consumer a legacy kubeconfig Secret is for.
 */
export const consumerLabel = 'x-k8s.io/cluster-inventory-consumer';
/**
 * The label naming the profile a legacy kubeconfig Secret is for.
 */
export const profileLabel = 'x-k8s.io/cluster-profile';
/** The data key of a legacy kubeconfig Secret. */
export const kubeconfigSecretKey = 'Config';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

const secretKind: ObjectKind = { apiVersion: 'v1', kind: 'Secret' };
const name = 'ClusterProfileProvider';

/**
 * SIG-Multicluster ClusterProfiles as a fleet: each healthy profile, named `<namespace>/<name>`, reached through the
 * operator's credential plugins (`accessConfig`) or a labelled kubeconfig Secret (`kubeconfigSecrets`).
 */
export class ClusterProfileProvider extends EngagerProvider {
  private readonly isReady: ReadinessCheck;
  private readonly selector: LabelSelector;
  private readonly access: AccessConfig | undefined;
  private readonly warnedDeprecated = new Set<string>();

  constructor(private readonly options: ClusterProfileProviderOptions) {
    super(name, new ClusterEngager('cluster-inventory-api', options ?? {}));
    checkProviderOptions(this.providerName, options, {
      accessConfig: anyValue,
      kubeconfigSecrets: nested<KubeconfigSecretStrategy>({ consumerName: nonEmptyString }),
      namespace: anyString,
      labelSelector: either(anyString, recordOf(anyString)),
      isReady: func,
      hostCluster: hostClusterRule,
    });
    if ((options?.accessConfig === undefined) === (options?.kubeconfigSecrets === undefined)) {
      throw new ProviderConfigError(name, 'exactly one of options.accessConfig and options.kubeconfigSecrets is required');
    }
    if (options.accessConfig && options.policy) {
      throw new ProviderConfigError(
        name,
        'options.policy applies to kubeconfigSecrets only (with accessConfig the operator configures the plugins)',
      );
    }
    this.access = options.accessConfig && checkAccessConfig(options.accessConfig, 'options.accessConfig');
    this.isReady = options.isReady ?? controlPlaneHealthy;
    try {
      this.selector = options.labelSelector === undefined ? everythingSelector : parseLabelSelector(options.labelSelector);
    } catch (err) {
      throw new ProviderConfigError(name, `options.labelSelector is invalid: ${(err as Error).message}`);
    }
  }

  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    const hub = this.options.hostCluster ?? context.localCluster;
    if (!hub) throw new ProviderConfigError(name, 'no hub cluster: start it from a manager or pass options.hostCluster');
    if (signal.aborted) return;
    this.engager.begin(context.aware, signal);
    const profiles = await hub.cache.acquireInformer<ClusterProfile>(clusterProfileKind, { signal });
    const secrets = this.options.kubeconfigSecrets ? await hub.cache.acquireInformer<SecretObject>(secretKind, { signal }) : undefined;
    // The hub's own KubeConfig class, so members' configs belong to the same copy of client-node as the caller's.
    const KubeConfigClass = hub.config.constructor as new () => Cluster['config'];
    const newKubeConfig = () => new KubeConfigClass();
    // Secrets labelled for this consumer, by the profile they name: a profile's lookup is O(1), not a scan of them all.
    const labelled = new Map<string, Map<string, SecretObject>>();
    const recompute = (namespace: string | undefined, profile: string | undefined): void => {
      if (!namespace || !profile || (this.options.namespace && namespace !== this.options.namespace)) return;
      const forProfile = [...(labelled.get(clusterProfileName(namespace, profile))?.values() ?? [])];
      const desired = this.desired(profiles.informer.get(namespace, profile), forProfile, newKubeConfig);
      this.engager.wish(clusterProfileName(namespace, profile), desired);
    };
    /** Files `secret` under the profile it names (or removes it); returns that profile, if it names one. */
    const file = (secret: SecretObject, present: boolean): [string, string] | undefined => {
      const { namespace, name, labels } = secret.metadata;
      const profile = labels?.[profileLabel];
      if (!namespace || !name || !profile || labels?.[consumerLabel] !== this.options.kubeconfigSecrets?.consumerName) return undefined;
      const key = clusterProfileName(namespace, profile);
      const byName = labelled.get(key) ?? new Map<string, SecretObject>();
      if (present) byName.set(name, secret);
      else byName.delete(name);
      if (byName.size > 0) labelled.set(key, byName);
      else labelled.delete(key);
      return [namespace, profile];
    };
    /** Updates the index first, then recomputes each profile concerned once (never from a half-updated index). */
    const secretChanged = (removed: SecretObject | undefined, added: SecretObject | undefined): void => {
      const touched = [removed && file(removed, false), added && file(added, true)];
      const seen = new Set<string>();
      for (const t of touched) {
        if (!t || seen.has(t.join('/'))) continue;
        seen.add(t.join('/'));
        recompute(t[0], t[1]);
      }
    };
    const registrations = [
      profiles.informer.addEventHandler({
        onAdd: (p) => recompute(p.metadata.namespace, p.metadata.name),
        onUpdate: (_o, p) => recompute(p.metadata.namespace, p.metadata.name),
        onDelete: (p) => recompute(p.metadata.namespace, p.metadata.name),
      }),
      ...(secrets
        ? [
            secrets.informer.addEventHandler({
              onAdd: (s) => secretChanged(undefined, s),
              // Relabelled to another profile (or consumer): the old profile loses it, the new one gains it.
              onUpdate: (old, s) => secretChanged(old, s),
              onDelete: (s) => secretChanged(s, undefined),
            }),
          ]
        : []),
    ];
    this.log.info('watching ClusterProfiles', {
      namespace: this.options.namespace ?? '(all)',
      selector: this.selector.toString() || '(all)',
      access: this.access
        ? this.access.providers.map((p) => p.name).join(',')
        : `kubeconfig Secrets for ${this.options.kubeconfigSecrets!.consumerName}`,
    });
    try {
      await whenAborted(signal);
    } finally {
      for (const r of registrations) r.remove();
      profiles.release();
      secrets?.release();
    }
  }

  /** `secrets`: those labelled for this consumer and this profile. */
  private desired(profile: ClusterProfile | undefined, secrets: SecretObject[], newKubeConfig: KubeConfigFactory): DesiredCluster {
    if (!profile || profile.metadata.deletionTimestamp || !this.selector.matches(profile.metadata.labels)) return absentCluster;
    let ready: boolean;
    try {
      ready = this.isReady(profile);
    } catch (err) {
      this.log.error('readiness check threw; treating the profile as not ready', err, { profile: profile.metadata.name });
      ready = false;
    }
    if (!ready) {
      return notReadyCluster(this.options.isReady ? 'options.isReady says not ready' : 'the ControlPlaneHealthy condition is not True');
    }
    if (this.access) return accessFor(profile, this.access, newKubeConfig, () => this.warnDeprecated(profile));
    return this.fromSecret(profile, secrets);
  }

  private fromSecret(profile: ClusterProfile, secrets: SecretObject[]): DesiredCluster {
    const { consumerName } = this.options.kubeconfigSecrets!;
    const matching = secrets.filter((s) => !s.metadata.deletionTimestamp);
    const labels = `${consumerLabel}=${consumerName}, ${profileLabel}=${profile.metadata.name}`;
    if (matching.length === 0) return refusedCluster('invalid', `no Secret labelled ${labels}`);
    if (matching.length > 1) {
      const names = matching.map((s) => s.metadata.name).sort();
      return refusedCluster('invalid', `${matching.length} Secrets labelled ${labels} (${names.join(', ')}); want exactly one`);
    }
    const encoded = matching[0]!.data?.[kubeconfigSecretKey];
    if (!encoded) return refusedCluster('invalid', `Secret ${matching[0]!.metadata.name} has no "${kubeconfigSecretKey}" key`);
    return desiredFromKubeconfig(Buffer.from(encoded, 'base64').toString('utf8'), this.options.policy);
  }

  private warnDeprecated(profile: ClusterProfile): void {
    const key = `${profile.metadata.namespace}/${profile.metadata.name}`;
    if (this.warnedDeprecated.has(key)) return;
    this.warnedDeprecated.add(key);
    this.log.warn('the profile lists its access provider in the deprecated status.credentialProviders; use status.accessProviders', {
      profile: key,
    });
  }
}
