/**
 * Keeps a ValidatingWebhookConfiguration and/or MutatingWebhookConfiguration in every engaged member, each webhook's
 * URL pointing at that member's path on the shared server and carrying the current CA bundle; re-applied when the CA
 * file changes, removed when the member leaves the fleet. Writes happen on the leader only (it is a leader-election
 * runnable, engaged everywhere like a controller). A member that is merely handed to another replica, replaced by
 * a new instance, or left behind because this process stops keeps its configuration: only a member the provider no
 * longer knows loses it.
 */
import {
  isClusterNotFound,
  newCluster,
  silentLogger,
  type Cluster,
  type ClusterName,
  type Logger,
  type Provider,
} from '@multicluster-runtime/core';
import { clusterPath } from '../cluster/resolve.js';
import { WebhookConfigurationError, WebhookOptionsError } from '../errors.js';
import { CaFileWatcher, checkCaBundle, readCaFile } from './ca-bundle.js';
import { buildConfigurations, checkKeeperOptions, configurationKind, type CheckedKeeperOptions, type KeeperOptions } from './render.js';

export type { KeeperOptions } from './render.js';

interface Member {
  readonly name: ClusterName;
  readonly cluster: Cluster;
  readonly signal: AbortSignal;
  /** Bumped on every sync request, so a slow older sync does not retry over a newer one. */
  generation: number;
  timer?: NodeJS.Timeout;
  failures: number;
}

/** What the keeper needs from the manager. */
export interface KeeperManager {
  /** The manager's provider, whose clusters get the webhook configuration. */
  getProvider?(): Provider | undefined;
  readonly logger?: Logger;
}

/**
 * Writes each engaged member's Validating/MutatingWebhookConfiguration (its URL and the CA to trust) and keeps it
 * current as the CA rotates.
 */
export class WebhookConfigurationKeeper {
  readonly name = 'webhook-configuration-keeper';
  private readonly options: CheckedKeeperOptions;
  private readonly log: Logger;
  private readonly members = new Map<ClusterName, Member>();
  private caBundle: string | undefined;
  private caWatcher: CaFileWatcher | undefined;
  private leading = false;
  private stopping = false;
  private started = false;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly mgr: KeeperManager,
    options: KeeperOptions,
  ) {
    this.options = checkKeeperOptions(options);
    this.log = (options.logger ?? mgr.logger ?? silentLogger).with({ component: 'webhook-configuration-keeper' });
    if (options.caBundle !== undefined) this.caBundle = checkCaBundle(options.caBundle, 'caBundle');
  }

  /** Members whose configurations are current (for tests and status). */
  get syncedMembers(): ClusterName[] {
    return [...this.members.values()].filter((m) => m.failures === 0 && m.timer === undefined).map((m) => m.name);
  }

  /** Keeps the configuration in the host cluster until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new WebhookOptionsError('the webhook configuration keeper was already started');
    this.started = true;
    signal.addEventListener('abort', () => (this.stopping = true), { once: true });
    if (this.options.caFile !== undefined) {
      this.caBundle = await readCaFile(this.options.caFile);
      this.caWatcher = new CaFileWatcher(this.options.caFile, this.caBundle, this.log, (pem) => {
        this.log.info('the CA bundle changed; updating every member', { members: this.members.size });
        this.caBundle = pem;
        for (const m of this.members.values()) this.sync(m);
      });
      this.caWatcher.start();
    }
    this.leading = true;
    for (const m of this.members.values()) this.sync(m);
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    this.stopping = true;
    for (const m of this.members.values()) clearTimeout(m.timer);
    await this.caWatcher?.close();
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Keeps the configuration in `cluster` until `signal` aborts (the cluster is disengaged). */
  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    const present = this.members.get(name);
    if (present?.cluster === cluster && !present.signal.aborted) return Promise.resolve();
    if (present) clearTimeout(present.timer);
    const member: Member = { name, cluster, signal, generation: 0, failures: 0 };
    this.members.set(name, member);
    signal.addEventListener('abort', () => this.disengaged(member), { once: true });
    if (this.leading) this.sync(member);
    return Promise.resolve();
  }

  /** Resolves once every write in progress has finished (tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private sync(member: Member): void {
    if (this.stopping || member.signal.aborted || this.members.get(member.name) !== member) return;
    clearTimeout(member.timer);
    member.timer = undefined;
    const generation = ++member.generation;
    this.track(
      (async () => {
        try {
          const fieldManager = this.options.fieldManager;
          for (const obj of buildConfigurations(this.options, this.caBundle!, (p) => this.options.url + clusterPath(member.name, p)))
            await member.cluster.client.apply(obj, { fieldManager, force: true, signal: member.signal });
          if (member.generation === generation) member.failures = 0;
          this.log.debug('webhook configurations applied', { cluster: member.name });
        } catch (err) {
          if (member.signal.aborted || this.stopping || member.generation !== generation) return;
          member.failures++;
          const delay = Math.min(60_000, 500 * 2 ** Math.min(member.failures, 7));
          this.log.warn('applying webhook configurations failed; retrying', { cluster: member.name, error: String(err), retryInMs: delay });
          member.timer = setTimeout(() => this.sync(member), delay);
          member.timer.unref();
        }
      })(),
    );
  }

  /** Removes the member's configurations if it really left the fleet (see the module comment). */
  private disengaged(member: Member): void {
    clearTimeout(member.timer);
    if (this.members.get(member.name) !== member) return; // replaced by a new instance
    this.members.delete(member.name);
    if (!this.leading || this.stopping) return;
    this.track(
      (async () => {
        // Let the provider finish forgetting the member before asking it.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.stopping || this.members.has(member.name) || (await this.providerKnows(member.name))) return;
        await this.remove(member);
      })(),
    );
  }

  private async providerKnows(name: ClusterName): Promise<boolean> {
    const provider = this.mgr.getProvider?.();
    if (!provider) return false;
    try {
      await provider.get(name, AbortSignal.timeout(5_000));
      return true;
    } catch (err) {
      return !isClusterNotFound(err);
    }
  }

  private async remove(member: Member): Promise<void> {
    // The member's own Cluster stops with its engagement (and closes its connections): use a short-lived client.
    const cluster = newCluster(member.cluster.config, { name: member.name });
    try {
      for (const { apiVersion, kind, name } of configurationKind(this.options)) {
        try {
          await cluster.client.delete({ apiVersion, kind }, { name }, { signal: AbortSignal.timeout(10_000) });
        } catch (err) {
          if ((err as { code?: number }).code === 404) continue;
          throw err;
        }
      }
      this.log.info('removed the webhook configurations of a member that left the fleet', { cluster: member.name });
    } catch (err) {
      this.log.warn('could not remove the webhook configurations of a member that left the fleet', {
        cluster: member.name,
        error: String(new WebhookConfigurationError(String(err))),
      });
    } finally {
      await cluster.close();
    }
  }
}
