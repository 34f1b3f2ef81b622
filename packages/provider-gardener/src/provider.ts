/**
 * The Gardener provider, in either of Gardener's topologies:
 * - `garden`: every Shoot (core.gardener.cloud/v1beta1) in the garden's project namespaces that is reconciled, awake
 *   and not being deleted is a member named `<namespace>/<shoot>`, reached through a kubeconfig the provider asks for
 *   through the shoot's `adminkubeconfig` (or `viewerkubeconfig`) subresource with a lifetime of
 *   `expirationSeconds`, and asks for again at 80 % of that lifetime.
 * - `seed`: every extensions Cluster (extensions.gardener.cloud/v1alpha1) on a seed is a member named after it (the
 *   shoot's technical ID), reached through the kubeconfig in the `gardener` Secret of the namespace of that name,
 *   which Gardener renews; the provider follows the Secret.
 * A renewed kubeconfig that reaches the same API server the same way only swaps the member's credential (see
 * renewable-credential.ts): the member stays engaged with its informers and cache. Anything else about it (a new
 * server or CA, a kubeconfig the policy refuses) goes through the engager like any changed kubeconfig. Kubeconfigs
 * from the garden are untrusted input (core's policy rules). Hibernated, deleted or unready shoots are disengaged.
 */
import { createHash } from 'node:crypto';
import { ClusterEngager, EngagerProvider, newCluster } from '@multicluster-runtime/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { SharedInformer, resourceListWatcher, type Informer, type ResourceListWatchOptions } from '@multicluster-runtime/core/cache';
import { Transport, isNotFound } from '@multicluster-runtime/core/client';
import {
  ProviderConfigError,
  absentCluster,
  checkProviderOptions,
  describeError,
  desiredFromKubeconfig,
  hostClusterRule,
  notReadyCluster,
  refusedCluster,
} from '@multicluster-runtime/core/providers';
import { anyString, func, oneOf, positiveInteger, withMethods } from '@multicluster-runtime/core/options';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { Cluster, ClusterName, KubeObject, KubeconfigPolicy, ObjectKind, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions, DesiredCluster } from '@multicluster-runtime/core/providers';
import { RenewableCredential, renewableParts } from './renewable-credential.js';
import { shootReadiness, type ShootObject, type ShootReadiness, type ShootReadinessCheck } from './readiness.js';

/** Options of {@link GardenerProvider}. */
export interface GardenerProviderOptions extends ClusterConnectionOptions {
  /** Where the provider runs: against a garden (Shoots) or a seed (extensions Clusters). Default `garden`. */
  topology?: 'garden' | 'seed';
  /** Garden: only Shoots in this project namespace (`garden-<project>`). Default: every namespace. */
  namespace?: string;
  /** Garden: the kubeconfig subresource to ask, `admin` (`shoots/adminkubeconfig`) or `viewer`. Default `admin`. */
  access?: 'admin' | 'viewer';
  /** Garden: the lifetime asked for each kubeconfig, in seconds (Gardener accepts 600 to 86,400). Default 3,600. */
  expirationSeconds?: number;
  /** Garden: when a Shoot is engaged. Default: reconciled, not hibernated and not being deleted. */
  isReady?: ShootReadinessCheck;
  /** What the kubeconfigs may do beyond inline credentials. Default: nothing. */
  policy?: KubeconfigPolicy;
  /** The garden (or seed) cluster. Default: the manager's local cluster. */
  hostCluster?: Cluster;
  /**
   * The garden (or seed) as a kubeconfig, when it is not the manager's own cluster (a controller running elsewhere
   * with a garden kubeconfig): the provider connects to it and closes the connection when it stops.
   */
  config?: KubeConfig;
}

/** Gardener's Shoot kind. */
export const shootKind: ObjectKind = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot' };
/** The extensions Cluster a seed holds per shoot control plane (seed topology). */
export const seedClusterKind: ObjectKind = { apiVersion: 'extensions.gardener.cloud/v1alpha1', kind: 'Cluster' };
const secretKind: ObjectKind = { apiVersion: 'v1', kind: 'Secret' };
const seedSecretName = 'gardener';
/** A credential is renewed when this share of its lifetime has passed (Gardener renews its own tokens at 80 %). */
const renewAtShare = 0.8;

/** `<namespace>/<shoot>`: the fleet name of a shoot in the garden topology. */
export function shootClusterName(namespace: string, name: string): ClusterName {
  return `${namespace}/${name}`;
}

/** An informer the provider follows, and how to let go of it. */
interface FollowedInformer<T extends KubeObject> {
  readonly informer: Informer<T>;
  close(): Promise<void>;
}

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

interface KubeconfigAnswer {
  status?: { kubeconfig?: unknown; expirationTimestamp?: unknown };
}

/** What the provider holds for one member besides the engager's slot. */
interface Member {
  readonly name: ClusterName;
  /** How the engaged config reaches the member, and its credential when it can be renewed in place. */
  endpoint?: { readonly key: string; readonly credential?: RenewableCredential };
  /** Garden: digest of the Shoot fields that say where and how it is reached; a change asks for a new kubeconfig. */
  addressKey?: string;
  /** Garden: the next renewal or retry. */
  timer?: ReturnType<typeof setTimeout>;
  /** Garden: the kubeconfig request in flight. */
  request?: AbortController;
  failures: number;
}

/**
 * Gardener shoots as a fleet: in a garden, each reconciled, awake Shoot named `<namespace>/<shoot>`; on a seed, each
 * shoot control plane named after its technical ID. Short-lived kubeconfigs are renewed in place.
 */
export class GardenerProvider extends EngagerProvider {
  private readonly topology: 'garden' | 'seed';
  private readonly members = new Map<ClusterName, Member>();
  private stopping = false;

  constructor(private readonly options: GardenerProviderOptions = {}) {
    super('GardenerProvider', new ClusterEngager('gardener', options));
    checkProviderOptions(this.providerName, options, {
      topology: oneOf('garden', 'seed'),
      namespace: anyString,
      access: oneOf('admin', 'viewer'),
      expirationSeconds: positiveInteger,
      isReady: func,
      hostCluster: hostClusterRule,
      config: withMethods('a KubeConfig', ['getCurrentCluster']),
    });
    if (options.config && options.hostCluster) {
      throw new ProviderConfigError(this.providerName, 'options.config and options.hostCluster both name the garden; give one');
    }
    this.topology = options.topology ?? 'garden';
    if (this.topology === 'seed') {
      for (const key of ['namespace', 'access', 'expirationSeconds', 'isReady'] as const) {
        if (options[key] !== undefined)
          throw new ProviderConfigError(this.providerName, `options.${key} applies to the garden topology only`);
      }
    }
  }

  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    const own = this.options.config ? newCluster(this.options.config, { name: this.topology, logger: this.log }) : undefined;
    const host = own ?? this.options.hostCluster ?? context.localCluster;
    if (!host) {
      throw new ProviderConfigError(
        this.providerName,
        `no ${this.topology} cluster: start it from a manager, or pass options.config or options.hostCluster`,
      );
    }
    if (signal.aborted) return;
    const running = own?.start(signal).catch((err: unknown) => this.log.error(`the ${this.topology} connection failed`, err));
    this.engager.begin(context.aware, signal);
    try {
      if (this.topology === 'garden') await this.followShoots(host, signal);
      else await this.followSeed(host, signal);
    } finally {
      this.stopping = true;
      for (const member of this.members.values()) this.quiet(member);
      await running;
    }
  }

  private async followShoots(garden: Cluster, signal: AbortSignal): Promise<void> {
    // One project: watch its namespace only, which is all a project member's RBAC allows; else the shared cache.
    const shoots = this.options.namespace
      ? await this.ownInformer<ShootObject>(garden, shootKind, { namespace: this.options.namespace }, signal)
      : await this.sharedInformer<ShootObject>(garden, shootKind, signal);
    const changed = (shoot: ShootObject): void => {
      const { namespace, name } = shoot.metadata;
      if (!namespace || !name || (this.options.namespace && namespace !== this.options.namespace)) return;
      this.shootChanged(garden, namespace, name, shoots.informer.get(namespace, name));
    };
    const registration = shoots.informer.addEventHandler({ onAdd: changed, onUpdate: (_o, s) => changed(s), onDelete: changed });
    this.log.info('watching Gardener shoots', { namespace: this.options.namespace ?? '(all)', access: this.options.access ?? 'admin' });
    try {
      await whenAborted(signal);
    } finally {
      registration.remove();
      await shoots.close();
    }
  }

  private shootChanged(garden: Cluster, namespace: string, name: string, shoot: ShootObject | undefined): void {
    const clusterName = shootClusterName(namespace, name);
    if (!shoot || shoot.metadata.deletionTimestamp) return this.forget(clusterName, absentCluster);
    const readiness = this.readiness(shoot);
    if (!readiness.ready) return this.forget(clusterName, notReadyCluster(readiness.reason));
    const member = this.member(clusterName);
    const addressKey = digest([shoot.status?.advertisedAddresses ?? null, shoot.status?.credentials ?? null]);
    const current =
      member.addressKey === addressKey && (member.endpoint !== undefined || member.request !== undefined || member.timer !== undefined);
    if (current) return;
    member.addressKey = addressKey;
    void this.requestKubeconfig(garden, member, namespace, name);
  }

  /** Asks the garden for a kubeconfig, uses it, and schedules the next request (renewal, or a retry after failure). */
  private async requestKubeconfig(garden: Cluster, member: Member, namespace: string, name: string): Promise<void> {
    if (this.stopping) return;
    this.quiet(member);
    // Aborted by quiet(): a newer request, the member forgotten, or the provider stopping (discover quiets every
    // member), so no listener per request piles up on the provider's signal.
    const request = new AbortController();
    member.request = request;
    const access = this.options.access ?? 'admin';
    const seconds = this.options.expirationSeconds ?? 3600;
    const asked = Date.now();
    try {
      const answer = await garden.client.createSubresource<KubeconfigAnswer>(
        shootKind,
        { namespace, name },
        `${access}kubeconfig`,
        {
          apiVersion: 'authentication.gardener.cloud/v1alpha1',
          kind: access === 'admin' ? 'AdminKubeconfigRequest' : 'ViewerKubeconfigRequest',
          spec: { expirationSeconds: seconds },
        },
        { signal: request.signal },
      );
      if (request.signal.aborted) return;
      member.failures = 0;
      const text = typeof answer?.status?.kubeconfig === 'string' ? Buffer.from(answer.status.kubeconfig, 'base64').toString('utf8') : '';
      this.use(member, text === '' ? refusedCluster('invalid', 'the garden answered without status.kubeconfig') : text);
      const expires = Date.parse(String(answer?.status?.expirationTimestamp));
      const lifetime = Number.isFinite(expires) && expires > asked ? expires - asked : seconds * 1000;
      this.schedule(member, lifetime * renewAtShare, () => void this.requestKubeconfig(garden, member, namespace, name));
    } catch (err) {
      if (request.signal.aborted || isNotFound(err)) return; // superseded, stopping, or the shoot is gone (its delete event follows)
      member.failures++;
      const reason = `the garden issued no kubeconfig: ${describeError(err)}`;
      this.log.warn('asking the garden for a kubeconfig failed; retrying', {
        cluster: member.name,
        error: describeError(err),
        failures: member.failures,
      });
      // An engaged member keeps its credential until it expires; one not engaged yet says why it waits.
      if (!member.endpoint) this.engager.wish(member.name, notReadyCluster(reason));
      this.schedule(member, this.backoff(member.failures), () => void this.requestKubeconfig(garden, member, namespace, name));
    } finally {
      if (member.request === request) member.request = undefined;
    }
  }

  private async followSeed(seed: Cluster, signal: AbortSignal): Promise<void> {
    const clusters = await this.sharedInformer(seed, seedClusterKind, signal);
    // Only the Secrets named gardener: a seed holds thousands of others, which neither the wire nor the cache should carry.
    const secrets = await this.ownInformer<SecretObject>(seed, secretKind, { fieldSelector: `metadata.name=${seedSecretName}` }, signal);
    const recompute = (id: string | undefined): void => {
      if (!id) return;
      const cluster = clusters.informer.get('', id);
      if (!cluster || cluster.metadata.deletionTimestamp) return this.forget(id, absentCluster);
      const secret = secrets.informer.get(id, seedSecretName);
      if (!secret || secret.metadata.deletionTimestamp) {
        return this.forget(id, notReadyCluster(`Secret ${seedSecretName} not found in namespace ${id}`));
      }
      const encoded = secret.data?.['kubeconfig'];
      if (!encoded) return this.forget(id, refusedCluster('invalid', `Secret ${id}/${seedSecretName} has no "kubeconfig" key`));
      this.use(this.member(id), Buffer.from(encoded, 'base64').toString('utf8'));
    };
    const fromSecret = (s: SecretObject): void => {
      if (s.metadata.name === seedSecretName) recompute(s.metadata.namespace);
    };
    const registrations = [
      clusters.informer.addEventHandler({
        onAdd: (c) => recompute(c.metadata.name),
        onUpdate: (_o, c) => recompute(c.metadata.name),
        onDelete: (c) => recompute(c.metadata.name),
      }),
      secrets.informer.addEventHandler({ onAdd: fromSecret, onUpdate: (_o, s) => fromSecret(s), onDelete: fromSecret }),
    ];
    this.log.info('watching Gardener seed clusters');
    try {
      await whenAborted(signal);
    } finally {
      for (const r of registrations) r.remove();
      await clusters.close();
      await secrets.close();
    }
  }

  /** The host cache's informer for `kind`, shared with the manager's controllers. */
  private async sharedInformer<T extends KubeObject>(host: Cluster, kind: ObjectKind, signal: AbortSignal): Promise<FollowedInformer<T>> {
    const lease = await host.cache.acquireInformer<T>(kind, { signal });
    return {
      informer: lease.informer,
      close: () => {
        lease.release();
        return Promise.resolve();
      },
    };
  }

  /**
   * An informer of the provider's own over `kind` on the host, limited server-side (one namespace, a field selector),
   * on a connection of its own; listed before it is returned.
   */
  private async ownInformer<T extends KubeObject>(
    host: Cluster,
    kind: ObjectKind,
    limits: ResourceListWatchOptions,
    signal: AbortSignal,
  ): Promise<FollowedInformer<T>> {
    const mapping = await host.restMapper.mapping(kind, { signal });
    const transport = Transport.forConfig(host.config);
    const informer = new SharedInformer<T>({ kind, source: resourceListWatcher(transport, mapping, limits), logger: this.log });
    const stop = new AbortController();
    const running = informer.run(stop.signal).catch((err: unknown) => this.log.error(`${kind.kind} informer failed`, err));
    const close = async () => {
      stop.abort();
      await running;
      await transport.close();
    };
    // Listed first, so no member is decided on half a view (a seed cluster without its Secret, say).
    if (!(await informer.waitForSync(signal))) await close();
    return { informer, close };
  }

  /**
   * Acts on a member's kubeconfig: the same endpoint with a renewable credential swaps the credential in place;
   * anything else becomes the member's wish (a new config, or refused content, which disengages it).
   */
  private use(member: Member, kubeconfig: string | DesiredCluster): void {
    const desired = typeof kubeconfig === 'string' ? desiredFromKubeconfig(kubeconfig, this.options.policy) : kubeconfig;
    if (desired.kind !== 'config') {
      member.endpoint = undefined;
      this.engager.wish(member.name, desired);
      return;
    }
    const parts = renewableParts(desired.config);
    if (!parts) {
      member.endpoint = { key: desired.fingerprint };
      this.engager.wish(member.name, desired);
      return;
    }
    const engaged = member.endpoint;
    if (engaged?.credential && engaged.key === parts.endpoint) {
      engaged.credential.renew(parts.secret);
      this.log.debug('credentials renewed in place', { cluster: member.name });
      return;
    }
    const credential = new RenewableCredential(parts.secret);
    member.endpoint = { key: parts.endpoint, credential };
    this.engager.wish(member.name, { kind: 'config', config: credential.config(parts.server), fingerprint: parts.endpoint });
  }

  private readiness(shoot: ShootObject): ShootReadiness {
    const check = this.options.isReady;
    if (!check) return shootReadiness(shoot);
    try {
      return check(shoot) ? { ready: true } : { ready: false, reason: 'options.isReady says not ready' };
    } catch (err) {
      this.log.error('readiness check threw; treating the shoot as not ready', err, { shoot: shoot.metadata.name });
      return { ready: false, reason: 'options.isReady threw' };
    }
  }

  private member(name: ClusterName): Member {
    let member = this.members.get(name);
    if (!member) this.members.set(name, (member = { name, failures: 0 }));
    return member;
  }

  /** Stops renewing a member, drops its credential and tells the engager what it should be now. */
  private forget(name: ClusterName, desired: DesiredCluster): void {
    const member = this.members.get(name);
    if (member) this.quiet(member);
    this.members.delete(name);
    this.engager.wish(name, desired);
  }

  /** Cancels a member's pending request and timer. */
  private quiet(member: Member): void {
    member.request?.abort();
    member.request = undefined;
    if (member.timer !== undefined) clearTimeout(member.timer);
    member.timer = undefined;
  }

  private schedule(member: Member, delayMs: number, run: () => void): void {
    if (this.stopping || this.members.get(member.name) !== member) return;
    if (member.timer !== undefined) clearTimeout(member.timer);
    member.timer = setTimeout(
      () => {
        member.timer = undefined;
        run();
      },
      Math.max(0, Math.min(delayMs, 2 ** 31 - 1)),
    );
  }

  /** Retry delay after `failures` failed requests: the retry option's backoff, capped at one minute. */
  private backoff(failures: number): number {
    const initial = this.options.retry?.initialMs ?? 1_000;
    const max = Math.min(this.options.retry?.maxMs ?? 60_000, 60_000);
    const base = Math.min(max, initial * 2 ** Math.min(failures - 1, 30));
    return Math.round(base * (0.8 + 0.4 * Math.random()));
  }
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
