/**
 * Peer discovery: each replica of a shard group announces itself with a Lease `<prefix>-peer-<id>` in the local
 * cluster (labels mark the group, an annotation carries its weight) and renews it; every replica lists the group's
 * Leases to learn the live peers. A peer is live while its Lease keeps changing: expiry is judged on this replica's
 * monotonic clock from when a renewal was first seen (as client-go's leader election does), so clock skew between
 * replicas does not matter; only a Lease seen for the first time is also checked against its wall-clock renewTime,
 * so a long-dead replica's leftover Lease is not taken for a live one. Self is always a peer. A replica that stops
 * cleanly deletes its Lease, so the others rebalance at their next refresh instead of after the TTL; the Lease of one
 * that crashed is deleted by a live peer once it has not changed for twice its duration (on that peer's clock, and
 * only if unchanged since: a resourceVersion precondition), so dead replicas do not pile up.
 * The same listing (the whole group) records when each fence Lease's current renewal was first seen, for fence.ts.
 */
import { isConflict, isNotFound } from '../client/errors.js';
import type { Client } from '../client/types.js';
import { leaseKind, observationKey, type Lease, type LeaseSpec } from '../leaderelection/lease-elector.js';
import { formatMicroTime, parseMicroTime } from '../leaderelection/micro-time.js';
import type { Logger } from '../log/logger.js';
import { deadline } from '../signal/deadline.js';
import { orAborted, sleep } from '../signal/wait.js';
import { leaseName } from './names.js';
import type { Peer } from './rendezvous.js';

/** Label on peer and fence Leases: the shard group they belong to. */
export const groupLabel = 'multicluster-runtime.io/shard-group';
/** Label on sharding Leases: `peer` (a replica announcing itself) or `fence` (one cluster's owner). */
export const roleLabel = 'multicluster-runtime.io/shard-role';
/** Annotation on a peer Lease: the replica's weight, its share of the fleet. */
export const weightAnnotation = 'multicluster-runtime.io/shard-weight';

export interface PeerRegistryOptions {
  client: Client;
  namespace: string;
  group: string;
  /** Prefix of Lease names (the group name by default). */
  prefix: string;
  self: Peer;
  /** How long a peer counts as live without renewing. */
  leaseDurationMs: number;
  /** How often this replica renews its Lease and re-lists its peers. */
  renewIntervalMs: number;
  logger: Logger;
}

interface Seen {
  key: string;
  /** Monotonic time the current renewal was first seen; -Infinity for a Lease already expired when first seen. */
  at: number;
  /** Monotonic time the current renewal was first seen, also for one already expired (for garbage collection). */
  since: number;
  durationMs: number;
  peer: Peer;
  resourceVersion: string | undefined;
}

/** A fence Lease's current renewal and when this replica's listing first saw it (monotonic ms). */
export interface FenceSeen {
  key: string;
  spec: LeaseSpec;
  at: number;
}

export class PeerRegistry {
  readonly self: Peer;
  readonly leaseName: string;
  private readonly seen = new Map<string, Seen>();
  private readonly fences = new Map<string, FenceSeen>();
  private current: Peer[];
  private readonly listeners = new Set<() => void>();
  private refreshed = false;
  private readonly firstRefresh: Promise<void>;
  private markRefreshed!: () => void;

  constructor(private readonly options: PeerRegistryOptions) {
    this.self = options.self;
    this.leaseName = leaseName(`${options.prefix}-peer`, options.self.id);
    this.current = [this.self];
    this.firstRefresh = new Promise((resolve) => {
      this.markRefreshed = resolve;
    });
  }

  /** Live peers, self included, sorted by ID. */
  peers(): Peer[] {
    return this.current;
  }

  /** What the last listings saw of a fence Lease of the group: its current renewal and since when. */
  fenceSeen(leaseName: string): FenceSeen | undefined {
    return this.fences.get(leaseName);
  }

  /** Calls `listener` whenever the set of live peers (or a weight) changes. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves after the first successful listing, or when `signal` aborts (then false). */
  async waitForPeers(signal: AbortSignal): Promise<boolean> {
    if (this.refreshed) return true;
    return orAborted(
      this.firstRefresh.then(() => true),
      signal,
      false,
    );
  }

  /** Announces and refreshes until `signal` aborts; API errors are logged and retried at the next interval. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const attempt = deadline(signal, this.options.leaseDurationMs);
      try {
        await this.announce(attempt.signal);
        await this.refresh(attempt.signal);
      } catch (err) {
        if (signal.aborted) break;
        this.options.logger.warn('announcing or listing shard peers failed; retrying', { error: errorText(err) });
        // Without a listing, peers still age out on our clock.
        this.update(performance.now());
      } finally {
        attempt.dispose();
      }
      await sleep(this.options.renewIntervalMs, signal);
    }
  }

  /** Deletes this replica's Lease so peers take over its clusters at once; best effort (it expires anyway). */
  async withdraw(timeoutMs: number): Promise<void> {
    const bound = deadline(undefined, timeoutMs);
    try {
      await this.options.client.delete(leaseKind, this.key(), { signal: bound.signal });
    } catch (err) {
      if (!isNotFound(err)) this.options.logger.warn('deleting the peer Lease failed; it will expire', { error: errorText(err) });
    } finally {
      bound.dispose();
    }
  }

  private async announce(signal: AbortSignal): Promise<void> {
    const { client, namespace, group } = this.options;
    const now = formatMicroTime(new Date());
    const spec: LeaseSpec = {
      holderIdentity: this.self.id,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      renewTime: now,
    };
    const metadata = {
      namespace,
      name: this.leaseName,
      labels: { [groupLabel]: group, [roleLabel]: 'peer' },
      annotations: { [weightAnnotation]: String(this.self.weight) },
    };
    let existing: Lease | undefined;
    try {
      existing = await client.get<Lease>(leaseKind, this.key(), { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!existing) {
      await client.create<Lease>(
        { apiVersion: leaseKind.apiVersion, kind: leaseKind.kind, metadata, spec: { ...spec, acquireTime: now } },
        { signal },
      );
      return;
    }
    await client.update<Lease>(
      {
        ...existing,
        metadata: {
          ...existing.metadata,
          labels: { ...existing.metadata.labels, ...metadata.labels },
          annotations: { ...existing.metadata.annotations, ...metadata.annotations },
        },
        spec: { ...existing.spec, ...spec },
      },
      { signal },
    );
  }

  private async refresh(signal: AbortSignal): Promise<void> {
    const list = await this.options.client.list<Lease>(leaseKind, {
      namespace: this.options.namespace,
      labelSelector: { [groupLabel]: this.options.group },
      signal,
    });
    const now = performance.now();
    const present = new Set<string>();
    this.recordFences(
      list.items.filter((l) => l.metadata.labels?.[roleLabel] === 'fence'),
      now,
    );
    for (const lease of list.items) {
      if (lease.metadata.labels?.[roleLabel] !== 'peer') continue;
      const peer = this.parse(lease);
      if (!peer || peer.id === this.self.id) continue;
      const name = lease.metadata.name ?? '';
      present.add(name);
      const spec = lease.spec ?? {};
      const key = `${spec.holderIdentity ?? ''}|${spec.renewTime ?? ''}|${peer.weight}`;
      const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
      const before = this.seen.get(name);
      if (before?.key === key) {
        before.resourceVersion = lease.metadata.resourceVersion;
        continue;
      }
      let at = now;
      if (!before) {
        const renewed = parseMicroTime(spec.renewTime);
        if (!renewed || renewed.getTime() + durationMs < Date.now()) at = -Infinity;
      }
      this.seen.set(name, { key, at, since: now, durationMs, peer, resourceVersion: lease.metadata.resourceVersion });
    }
    for (const name of [...this.seen.keys()]) if (!present.has(name)) this.seen.delete(name);
    this.update(now);
    if (!this.refreshed) {
      this.refreshed = true;
      this.markRefreshed();
    }
    await this.collectDead(now, signal);
  }

  private recordFences(leases: readonly Lease[], now: number): void {
    const present = new Set<string>();
    for (const lease of leases) {
      const name = lease.metadata.name ?? '';
      const spec = lease.spec ?? {};
      present.add(name);
      const key = observationKey(spec);
      if (this.fences.get(name)?.key !== key) this.fences.set(name, { key, spec, at: now });
    }
    for (const name of [...this.fences.keys()]) if (!present.has(name)) this.fences.delete(name);
  }

  /** Deletes the Leases of peers that have not renewed for twice their duration; another replica may race us to it. */
  private async collectDead(now: number, signal: AbortSignal): Promise<void> {
    for (const [name, s] of this.seen) {
      if (now - s.since < 2 * s.durationMs || !s.resourceVersion) continue;
      try {
        await this.options.client.delete(
          leaseKind,
          { namespace: this.options.namespace, name },
          { preconditions: { resourceVersion: s.resourceVersion }, signal },
        );
        this.options.logger.info('deleted the Lease of a shard peer that stopped renewing it', { peer: s.peer.id, lease: name });
        this.seen.delete(name);
      } catch (err) {
        // Gone already, or renewed since (409): either way there is nothing to collect.
        if (isNotFound(err) || isConflict(err)) this.seen.delete(name);
        else if (!signal.aborted)
          this.options.logger.warn('deleting the Lease of a dead shard peer failed', { lease: name, error: errorText(err) });
      }
    }
  }

  private parse(lease: Lease): Peer | undefined {
    const id = lease.spec?.holderIdentity;
    if (!id || !lease.spec?.leaseDurationSeconds) return undefined;
    const raw = lease.metadata.annotations?.[weightAnnotation];
    const weight = raw === undefined ? 1 : Number(raw);
    if (!(Number.isFinite(weight) && weight > 0)) {
      this.options.logger.warn('ignoring a shard peer with an invalid weight', { peer: id, weight: raw });
      return undefined;
    }
    return { id, weight };
  }

  /** Recomputes the live set from what was seen; notifies listeners if it changed. */
  private update(now: number): void {
    const live = [this.self];
    for (const s of this.seen.values()) if (now - s.at < s.durationMs) live.push(s.peer);
    live.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const signature = (ps: Peer[]) => ps.map((p) => `${p.id}=${p.weight}`).join(',');
    if (signature(live) === signature(this.current)) return;
    this.options.logger.info('shard peers changed', { peers: live.map((p) => p.id) });
    this.current = live;
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch (err) {
        this.options.logger.error('a shard peer listener failed', err);
      }
    }
  }

  private key() {
    return { namespace: this.options.namespace, name: this.leaseName };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
