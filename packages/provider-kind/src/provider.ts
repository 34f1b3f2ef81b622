/**
 * The kind provider: polls the kind CLI for clusters, engages each one (named after the kind cluster), re-engages it
 * when its kubeconfig changes (a cluster recreated under the same name gets new certificates and a new port), and
 * disengages clusters that are gone. A failing CLI or one bad cluster never disturbs the clusters already engaged,
 * and clusters come up concurrently (core's ClusterEngager), so one unreachable cluster never delays the others.
 */
import { ClusterEngager, EngagerProvider } from '@multicluster-runtime/core';
import {
  ProviderConfigError,
  absentCluster,
  desiredFromKubeconfig,
  refusedCluster,
  checkProviderOptions,
} from '@multicluster-runtime/core/providers';
import { anyString, anyValue, nonEmptyString, positiveMs, recordOf } from '@multicluster-runtime/core/options';
import { sleep } from '@multicluster-runtime/core/signal';
import type { ClusterName, KubeconfigPolicy, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions } from '@multicluster-runtime/core/providers';
import { KindCli, type KindCliOptions } from './kind-cli.js';

export interface KindProviderOptions extends KindCliOptions, ClusterConnectionOptions {
  /** Only clusters whose name starts with this prefix. */
  namePrefix?: string;
  /** How often to ask kind for clusters. Default 2 s. */
  pollIntervalMs?: number;
  /** What the kubeconfigs kind prints may do. kind's own need nothing beyond the default. */
  policy?: KubeconfigPolicy;
}

/** What polling the CLI sees. Each cluster's own state is `status(name)` / `statuses()`. */
export interface KindPollStatus {
  /** The last failure to list clusters, cleared by the next successful listing. */
  lastError?: string;
  /** Completed polls. */
  polls: number;
}

/**
 * kind clusters as a fleet, discovered by polling the `kind` CLI (optionally only names with a prefix).
 */
export class KindProvider extends EngagerProvider {
  private readonly cli: KindCli;
  private readonly pollIntervalMs: number;
  private readonly listed = new Set<ClusterName>();
  private lastError: string | undefined;
  private polls = 0;

  constructor(private readonly options: KindProviderOptions = {}) {
    super('KindProvider', new ClusterEngager('kind', options));
    checkProviderOptions(this.providerName, options, {
      binary: nonEmptyString,
      env: recordOf(anyString),
      timeoutMs: positiveMs,
      namePrefix: anyString,
      pollIntervalMs: anyValue,
    });
    this.cli = new KindCli(options);
    this.pollIntervalMs = options.pollIntervalMs ?? 2_000;
    if (!(Number.isFinite(this.pollIntervalMs) && this.pollIntervalMs > 0)) {
      throw new ProviderConfigError(
        this.providerName,
        `options.pollIntervalMs must be a positive number, got ${String(options.pollIntervalMs)}`,
      );
    }
  }

  /** A snapshot of the CLI polling; useful for probes and tests. */
  pollStatus(): KindPollStatus {
    return { ...(this.lastError !== undefined ? { lastError: this.lastError } : {}), polls: this.polls };
  }

  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    this.engager.begin(context.aware, signal);
    while (!signal.aborted) {
      await this.poll(signal);
      this.polls++;
      await sleep(this.pollIntervalMs, signal);
    }
  }

  private async poll(signal: AbortSignal): Promise<void> {
    let names: string[];
    try {
      names = (await this.cli.listClusters(signal)).filter((n) => n.startsWith(this.options.namePrefix ?? ''));
      this.lastError = undefined;
    } catch (err) {
      if (signal.aborted) return;
      // Keep what is engaged: a broken CLI says nothing about whether the clusters still exist.
      this.lastError = (err as Error).message;
      this.log.warn('listing kind clusters failed; retrying next poll', { error: this.lastError });
      return;
    }
    const present = new Set(names);
    for (const name of this.listed) {
      if (present.has(name)) continue;
      this.listed.delete(name);
      this.engager.wish(name, absentCluster);
    }
    await Promise.all(names.map((name) => this.refresh(name, signal)));
  }

  /** Tells the engager what kind says about `name` now; an unchanged kubeconfig is a no-op there. */
  private async refresh(name: ClusterName, signal: AbortSignal): Promise<void> {
    this.listed.add(name);
    let kubeconfig: string;
    try {
      kubeconfig = await this.cli.getKubeconfig(name, signal);
    } catch (err) {
      if (signal.aborted) return;
      // A cluster that is engaged keeps running on its last good kubeconfig; the next poll asks again.
      this.engager.wish(name, refusedCluster('invalid', (err as Error).message, true));
      return;
    }
    this.engager.wish(name, desiredFromKubeconfig(kubeconfig, this.options.policy, { keepEngagedOnInvalid: true }));
  }
}
