/**
 * The shard coordinator sits between the provider and the manager's engagements. The provider engages every cluster
 * with it on every replica; it engages a cluster onward only while this replica (1) is the rendezvous owner among
 * the live peers and (2) holds the cluster's fence. The onward engagement signal aborts on any of: the provider
 * disengaging that cluster, the fence being lost, ownership moving, or shutdown — and the controllers then stop that
 * cluster's sources and informers and drop its queued work. Each cluster's engagement derives only from its own
 * provider signal, so removing one never stops another; ownership is rechecked
 * when peers change, when clusters come and go, and periodically; the fence is released only after the engagement
 * was aborted and the Awares say its work has fully stopped (`waitForDisengaged`: no reconcile still running, even
 * one that ignores its signal), and at shutdown only after the runnables stopped. A cluster whose work does not stop
 * within the renew deadline keeps its fence unreleased: the fence expires instead of being handed over at once.
 */
import type { Cluster } from '../cluster/types.js';
import type { Client } from '../client/types.js';
import type { Leadership } from '../leaderelection/lease-elector.js';
import type { Logger } from '../log/logger.js';
import { subscribeAbort } from '../signal/fanout.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';
import { sleep } from '../signal/wait.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Aware } from '../multicluster/types.js';
import { WorkDrain } from './drain.js';
import { Fence } from './fence.js';
import type { ResolvedSharding } from './options.js';
import { PeerRegistry, groupLabel, roleLabel } from './peers.js';
import { ownerOf } from './rendezvous.js';

interface Owned {
  readonly term: Leadership;
  link: LinkedAbort;
  /** The cluster instance engaged under `link`. */
  cluster: Cluster;
}

interface Entry {
  readonly name: ClusterName;
  cluster: Cluster;
  /** The provider's engagement signal for `cluster`. */
  provider: AbortSignal;
  unsubscribe: () => void;
  readonly fence: Fence;
  owned: Owned | undefined;
  removed: boolean;
  /** Monotonic time before which a wanted fence held by another replica is not tried again. */
  nextTry: number;
  syncing: boolean;
  again: boolean;
  done: Promise<void>;
}

export class ShardCoordinator {
  readonly peers: PeerRegistry;
  private readonly entries = new Map<ClusterName, Entry>();
  private readonly stopped = new AbortController();
  /** Fences whose release waits for the runnables to stop (shutdown). */
  private readonly heldBack: { name: ClusterName; term: Leadership }[] = [];
  private started = false;
  private readonly drain: WorkDrain;

  constructor(
    private readonly client: Client,
    private readonly options: ResolvedSharding,
    /** Where owned clusters are engaged onward (the manager's engagements), and asked whether their work stopped. */
    private readonly onward: Aware,
    private readonly log: Logger,
  ) {
    const t = options.timings;
    this.peers = new PeerRegistry({
      client,
      namespace: options.namespace,
      group: options.groupName,
      prefix: options.groupName,
      self: { id: options.id, weight: options.weight },
      leaseDurationMs: t.peerLeaseDurationMs,
      renewIntervalMs: t.peerRenewIntervalMs,
      logger: log,
    });
    this.peers.onChange(() => this.syncAll());
    this.drain = new WorkDrain(onward, log, t, (name) => this.owns(name));
  }

  get id(): string {
    return this.options.id;
  }

  /** True if this replica has the cluster engaged (it is the owner and holds the fence). */
  owns(name: ClusterName): boolean {
    const owned = this.entries.get(name)?.owned;
    return owned !== undefined && !owned.link.signal.aborted;
  }

  /** The rendezvous owner of `name` among the peers this replica sees. */
  ownerOf(name: ClusterName): string | undefined {
    return ownerOf(name, this.peers.peers())?.id;
  }

  /** Called by the provider on every replica; returns at once, ownership is decided in the background. */
  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    if (signal.aborted || this.stopped.signal.aborted) return Promise.resolve();
    let entry = this.entries.get(name);
    if (entry && !entry.removed) {
      if (entry.cluster === cluster && entry.provider === signal) return Promise.resolve();
      // A new instance or signal for the same name: keep the fence, re-engage the new instance under it.
      entry.unsubscribe();
      entry.cluster = cluster;
      entry.provider = signal;
      entry.unsubscribe = this.watchProvider(entry, signal);
    } else {
      const t = this.options.timings;
      entry = {
        name,
        cluster,
        provider: signal,
        unsubscribe: () => {},
        owned: undefined,
        removed: false,
        nextTry: 0,
        // A removed entry of the same name may still be releasing its fence: the new one's passes wait for it.
        syncing: false,
        again: false,
        done: entry?.done ?? Promise.resolve(),
        // A re-added cluster reuses the old entry's fence object, so expiry observations carry over.
        fence:
          entry?.fence ??
          new Fence(name, {
            client: this.client,
            namespace: this.options.namespace,
            prefix: this.options.groupName,
            identity: this.options.id,
            leaseDurationMs: t.fenceLeaseDurationMs,
            renewDeadlineMs: t.fenceRenewDeadlineMs,
            retryPeriodMs: t.fenceRetryPeriodMs,
            logger: this.log,
            labels: { [groupLabel]: this.options.groupName, [roleLabel]: 'fence' },
            observed: (lease) => this.peers.fenceSeen(lease),
          }),
      };
      this.entries.set(name, entry);
      entry.unsubscribe = this.watchProvider(entry, signal);
    }
    this.schedule(entry);
    return Promise.resolve();
  }

  /** Announces this replica, then recomputes ownership on peer changes and periodically, until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    const peers = this.peers.run(signal);
    if (await this.peers.waitForPeers(signal)) {
      // Ownership is decided only once the peers are known, so a starting replica does not grab every free fence.
      this.started = true;
      this.log.info('sharding started', { replica: this.options.id, peers: this.peers.peers().map((p) => p.id) });
      let lastFull = performance.now();
      this.syncAll();
      while (await sleep(this.options.timings.fenceRetryPeriodMs, signal)) {
        const now = performance.now();
        const full = now - lastFull >= this.options.timings.recomputeIntervalMs;
        if (full) lastFull = now;
        for (const e of this.entries.values()) if (full || (!e.owned && e.nextTry <= now)) this.schedule(e);
      }
    }
    await peers;
  }

  /** Disengages every cluster (the manager's shutdown); fences stay held until `close`. */
  stop(): void {
    this.stopped.abort();
  }

  /**
   * After the runnables stopped: releases every fence whose cluster's work has stopped (waiting up to `drainWithinMs`,
   * at most the fence renew deadline; the others are left to expire) and withdraws the peer Lease, so other replicas
   * take over at once. Call after `stop`; bounded by about twice the fence renew deadline.
   */
  async close(drainWithinMs = this.options.timings.fenceRenewDeadlineMs): Promise<void> {
    this.stopped.abort();
    await Promise.all([...this.entries.values()].map((e) => e.done));
    const held = this.heldBack.splice(0);
    for (const e of this.entries.values()) {
      e.unsubscribe();
      if (e.owned) {
        e.owned.link.abort();
        held.push({ name: e.name, term: e.owned.term });
      }
      e.owned = undefined;
    }
    this.entries.clear();
    const within = Math.min(drainWithinMs, this.options.timings.fenceRenewDeadlineMs);
    await Promise.all([
      ...held.map((h) => this.drain.handBack(h.name, h.term, within)),
      this.peers.withdraw(this.options.timings.fenceRenewDeadlineMs),
    ]);
  }

  private watchProvider(entry: Entry, signal: AbortSignal): () => void {
    return subscribeAbort(signal, () => {
      if (entry.provider !== signal) return; // replaced by a newer engagement of the same name
      entry.removed = true;
      this.schedule(entry);
    });
  }

  private syncAll(): void {
    for (const e of this.entries.values()) this.schedule(e);
  }

  /** Runs `sync` for the entry, one pass at a time; a request during a pass runs one more pass after it. */
  private schedule(entry: Entry): void {
    if (entry.syncing) {
      entry.again = true;
      return;
    }
    entry.syncing = true;
    const previous = entry.done;
    entry.done = (async () => {
      try {
        await previous;
        do {
          entry.again = false;
          try {
            await this.sync(entry);
          } catch (err) {
            this.log.error('shard ownership pass failed', err, { cluster: entry.name });
          }
        } while (entry.again);
      } finally {
        entry.syncing = false;
      }
    })();
  }

  private async sync(entry: Entry): Promise<void> {
    const stopping = this.stopped.signal.aborted;
    if (entry.removed || stopping) {
      await this.unown(entry, entry.removed ? 'the provider disengaged it' : 'shutting down');
      if (entry.removed && this.entries.get(entry.name) === entry) {
        entry.unsubscribe();
        this.entries.delete(entry.name);
      }
      return;
    }
    if (!this.started) return;
    const should = this.ownerOf(entry.name) === this.options.id;
    if (!should) {
      if (entry.owned) await this.unown(entry, `replica ${JSON.stringify(this.ownerOf(entry.name))} owns it now`);
      return;
    }
    if (entry.owned) {
      if (entry.owned.cluster !== entry.cluster || entry.owned.link.signal.aborted) await this.engageOwned(entry, entry.owned);
      return;
    }
    if (performance.now() < entry.nextTry) return;
    let term: Leadership | undefined;
    try {
      term = await entry.fence.tryAcquire(this.stopped.signal);
    } catch (err) {
      this.log.warn('taking the cluster fence failed; retrying', {
        cluster: entry.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    if (!term) {
      entry.nextTry = performance.now() + this.options.timings.fenceRetryPeriodMs;
      return;
    }
    if (entry.removed || this.stopped.signal.aborted || this.ownerOf(entry.name) !== this.options.id) {
      // Things changed while we asked: hand the fence straight back (or keep it for close at shutdown).
      entry.owned = { term, link: linkedAbort(), cluster: entry.cluster };
      entry.owned.link.abort();
      entry.again = true;
      return;
    }
    const owned: Owned = { term, link: linkedAbort(), cluster: entry.cluster };
    owned.link.abort();
    entry.owned = owned;
    term.signal.addEventListener(
      'abort',
      () => {
        if (entry.owned !== owned) return;
        // Lost (not released): the link aborted with it; forget the term and try again later.
        this.log.warn('lost the cluster fence; disengaged the cluster', { cluster: entry.name, fence: entry.fence.leaseName });
        entry.owned = undefined;
        entry.nextTry = performance.now() + this.options.timings.fenceRetryPeriodMs;
        void this.drain.warnIfStillRunning(entry.name);
      },
      { once: true },
    );
    await this.engageOwned(entry, owned);
  }

  /** Engages the current instance under a fresh link (provider signal + fence term + shutdown). */
  private async engageOwned(entry: Entry, owned: Owned): Promise<void> {
    const previous = owned.link;
    const link = linkedAbort(entry.provider, owned.term.signal, this.stopped.signal);
    owned.link = link;
    owned.cluster = entry.cluster;
    this.log.info('owning cluster; engaging it', { cluster: entry.name, fence: entry.fence.leaseName });
    // The engagements register the new instance synchronously, so ending the previous link afterwards is a replace.
    const engaged = this.onward.engage(link.signal, entry.name, entry.cluster);
    previous.abort();
    previous.dispose();
    try {
      await engaged;
    } catch (err) {
      // Some runnables refused the cluster; the rest are engaged and keep it (as without sharding).
      this.log.error('engaging an owned cluster failed for some runnables', err, { cluster: entry.name });
    }
  }

  /**
   * Aborts the engagement, then hands the fence back once the cluster's work has stopped (held back until `close`
   * while shutting down). The entry's next pass, e.g. taking the fence again, waits for this one.
   */
  private async unown(entry: Entry, why: string): Promise<void> {
    const owned = entry.owned;
    if (!owned) return;
    entry.owned = undefined;
    entry.nextTry = 0;
    owned.link.abort();
    owned.link.dispose();
    if (this.stopped.signal.aborted) {
      this.heldBack.push({ name: entry.name, term: owned.term });
      return;
    }
    this.log.info('no longer owning cluster; disengaged it, releasing its fence once its reconciles have ended', {
      cluster: entry.name,
      why,
    });
    await this.drain.handBack(entry.name, owned.term, this.options.timings.fenceRenewDeadlineMs);
  }
}
