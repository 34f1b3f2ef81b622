/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics: a candidate takes the Lease when
 * nobody holds it or when the holder has not renewed for the holder's `leaseDurationSeconds` as observed on this
 * replica's own monotonic clock (so clock skew between replicas does not matter); the leader renews every
 * `retryPeriodMs` and steps down when it has not renewed for `renewDeadlineMs`, before any other replica may take
 * over; a leader that shuts down clears `holderIdentity` so the next replica takes over at once. Writes are
 * resourceVersion-checked updates: a 409 means another replica won the race.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.js';
import type { Client } from '../client/types.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { deadline } from '../signal/deadline.js';
import { sleep } from '../signal/wait.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import { LeaderElectionConfigError, LeaderElectionLostError } from './errors.js';
import { formatMicroTime } from './micro-time.js';

/** The Lease kind, coordination.k8s.io/v1. */
export const leaseKind: ObjectKind = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

/** The spec of a coordination.k8s.io/v1 Lease, as the elector reads and writes it. */
export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** Options of a LeaseElector: the Lease and its labels, the candidate's identity, the lease duration, renew deadline and retry period, and the logger. */
export interface LeaseElectorOptions {
  namespace: string;
  name: string;
  /** This replica's identity. Default `<hostname>_<uuid>` (unique per process, as controller-runtime). */
  identity?: string;
  /** How long a holder's claim lasts without renewal. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it steps down. Default 10 s. */
  renewDeadlineMs?: number;
  /** Time between acquire and renew attempts. Default 2 s. */
  retryPeriodMs?: number;
  logger?: Logger;
  /** Labels the Lease carries (added when it is created or next written), so a watcher of many Leases can select them. */
  labels?: Readonly<Record<string, string>>;
}

/** A term as leader. */
export interface Leadership {
  readonly identity: string;
  /** Aborts when leadership ends: lost (reason is a LeaderElectionLostError) or released. */
  readonly signal: AbortSignal;
  /** Stops renewing and clears the Lease holder so another replica can take over at once. Idempotent. */
  release(): Promise<void>;
  /**
   * Stops renewing but leaves the holder in place, so the Lease expires a lease duration after the last renewal:
   * for when the work the Lease guards may still be running and an immediate takeover could overlap it. Ends the
   * term; a later `release` does nothing.
   */
  abandon(): void;
}

/** Jitter on acquire retries, as client-go, so candidates do not retry in lockstep. */
const jitterFactor = 1.2;

/** Acquires and renews one coordination.k8s.io Lease, as client-go's leaderelection: the holder is the leader until it stops renewing. */
export class LeaseElector {
  readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly log: Logger;
  private readonly leaseName: string;
  /** The spec last seen, and when (monotonic ms) it was first seen; expiry is judged from that. */
  private observed: { key: string; at: number } | undefined;

  constructor(
    private readonly client: Client,
    private readonly options: LeaseElectorOptions,
  ) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.leaseName = `${options.namespace}/${options.name}`;
    if (!options.namespace || !options.name) {
      throw new LeaderElectionConfigError('leader election needs a Lease namespace and name');
    }
    if (!this.identity) throw new LeaderElectionConfigError('leader election identity must not be empty');
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new LeaderElectionConfigError('leaseDurationMs must be greater than renewDeadlineMs');
    }
    if (!(this.renewDeadlineMs > jitterFactor * this.retryPeriodMs) || !(this.retryPeriodMs > 0)) {
      throw new LeaderElectionConfigError(`renewDeadlineMs must be greater than ${jitterFactor} × retryPeriodMs (> 0)`);
    }
    if (this.leaseDurationMs < 1000) throw new LeaderElectionConfigError('leaseDurationMs must be at least 1000 (Leases count in seconds)');
    this.log = (options.logger ?? silentLogger).with({ lease: this.leaseName, identity: this.identity });
  }

  /**
   * Campaigns until this replica holds the Lease; resolves with the term, or undefined if `signal` aborts first.
   * Errors talking to the API server are logged and retried (a candidate never gives up).
   */
  async acquire(signal: AbortSignal): Promise<Leadership | undefined> {
    this.log.info('campaigning for leadership');
    while (!signal.aborted) {
      let acquired = false;
      try {
        acquired = await this.tryAcquireOrRenew(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.log.warn('acquiring the lease failed; retrying', { error: errorText(err) });
      }
      if (acquired) {
        this.log.info('became leader');
        return this.lead();
      }
      await sleep(this.retryPeriodMs * (1 + Math.random() * (jitterFactor - 1)), signal);
    }
    return undefined;
  }

  /**
   * One attempt without campaigning: the term if this replica holds the Lease afterwards (taken or renewed), else
   * undefined (another holder's claim has not expired, or it won a race). API errors throw. Sharding's per-cluster
   * fences use it to try many Leases on their own schedule; keep one elector per Lease, since expiry is judged from
   * what this instance observed.
   */
  async tryAcquire(signal: AbortSignal): Promise<Leadership | undefined> {
    return (await this.tryAcquireOrRenew(signal)) ? this.lead() : undefined;
  }

  /**
   * Tells the elector that the Lease had `spec` already at monotonic time `at` (`performance.now()`), seen by someone
   * watching many Leases; if the Lease still has it at the next attempt, its expiry counts from then rather than from
   * that attempt. Only ever moves the start earlier for the same spec: safety still rests on this process's clock.
   */
  noteObserved(spec: LeaseSpec, at: number): void {
    const key = observationKey(spec);
    if (this.observed?.key === key && this.observed.at <= at) return;
    this.observed = { key, at };
  }

  /** Runs the renew loop for a fresh term. */
  private lead(): Leadership {
    const term = new AbortController();
    const renewStop = new AbortController();
    let lastRenew = performance.now();
    let renewDeadline: NodeJS.Timeout | undefined;
    const lose = (reason: string, cause?: unknown) => {
      if (term.signal.aborted) return;
      const err = new LeaderElectionLostError(this.leaseName, this.identity, reason, { cause });
      this.log.error('leadership lost', err);
      renewStop.abort();
      term.abort(err);
    };
    const armDeadline = () => {
      clearTimeout(renewDeadline);
      renewDeadline = setTimeout(() => lose(`no successful renewal within ${this.renewDeadlineMs} ms`), this.renewDeadlineMs);
    };
    armDeadline();
    const loop = (async () => {
      while (await sleep(this.retryPeriodMs, renewStop.signal)) {
        try {
          const renewed = await this.tryAcquireOrRenew(renewStop.signal);
          if (renewStop.signal.aborted) break;
          if (!renewed) return lose('another replica holds the lease');
          lastRenew = performance.now();
          armDeadline();
        } catch (err) {
          if (renewStop.signal.aborted) break;
          this.log.warn('renewing the lease failed; retrying until the renew deadline', {
            error: errorText(err),
            sinceLastRenewMs: Math.round(performance.now() - lastRenew),
          });
        }
      }
    })().finally(() => clearTimeout(renewDeadline));

    let released: Promise<void> | undefined;
    const abandon = (): void => {
      if (released) return;
      renewStop.abort();
      clearTimeout(renewDeadline);
      if (!term.signal.aborted) this.log.warn('stopped renewing the lease without releasing it; it will expire');
      released = loop.then(() => undefined);
      term.abort();
    };
    const release = (): Promise<void> => {
      released ??= (async () => {
        const wasLeading = !term.signal.aborted;
        renewStop.abort();
        clearTimeout(renewDeadline);
        await loop;
        term.abort();
        if (wasLeading) await this.releaseLease();
      })();
      return released;
    };
    return { identity: this.identity, signal: term.signal, release, abandon };
  }

  /** Clears the holder if it is still us; best effort (the Lease expires anyway). */
  private async releaseLease(): Promise<void> {
    const bound = deadline(undefined, this.renewDeadlineMs);
    try {
      const lease = await this.client.get<Lease>(leaseKind, this.key(), { signal: bound.signal });
      if (lease.spec?.holderIdentity !== this.identity) return;
      const now = formatMicroTime(new Date());
      await this.client.update<Lease>(
        {
          ...lease,
          spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
        },
        { signal: bound.signal },
      );
      this.log.info('released the lease');
    } catch (err) {
      this.log.warn('releasing the lease failed; it will expire on its own', { error: errorText(err) });
    } finally {
      bound.dispose();
    }
  }

  /** One attempt: true if this replica holds the Lease afterwards. Throws on API errors other than races. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    // Bound each attempt so one hung request cannot stall the loop.
    const attempt = deadline(signal, this.renewDeadlineMs);
    try {
      return await this.attempt(attempt.signal);
    } finally {
      attempt.dispose();
    }
  }

  private async attempt(signal: AbortSignal): Promise<boolean> {
    const now = new Date();
    const durationSeconds = Math.ceil(this.leaseDurationMs / 1000);
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(leaseKind, this.key(), { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const spec: LeaseSpec = {
        holderIdentity: this.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: formatMicroTime(now),
        renewTime: formatMicroTime(now),
        leaseTransitions: 0,
      };
      try {
        const created = await this.client.create<Lease>(
          {
            apiVersion: leaseKind.apiVersion,
            kind: leaseKind.kind,
            metadata: {
              namespace: this.options.namespace,
              name: this.options.name,
              ...(this.options.labels ? { labels: { ...this.options.labels } } : {}),
            },
            spec,
          },
          { signal },
        );
        this.observe(created.spec ?? spec);
        return true;
      } catch (createErr) {
        if (isAlreadyExists(createErr) || isConflict(createErr)) return false; // another replica created it first
        throw createErr;
      }
    }

    const spec = lease.spec ?? {};
    this.observe(spec);
    const holder = spec.holderIdentity ?? '';
    const heldByUs = holder === this.identity;
    if (holder !== '' && !heldByUs) {
      const holderDurationMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (this.observed && performance.now() < this.observed.at + holderDurationMs) return false;
      this.log.info('the lease expired; taking it over', { previousHolder: holder });
    }
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: this.identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: formatMicroTime(now),
      acquireTime: heldByUs && spec.acquireTime ? spec.acquireTime : formatMicroTime(now),
      // As client-go: every change of holder counts, also taking over a released Lease.
      leaseTransitions: heldByUs ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
    };
    try {
      const labels = this.options.labels;
      const metadata = labels ? { ...lease.metadata, labels: { ...lease.metadata.labels, ...labels } } : lease.metadata;
      const updated = await this.client.update<Lease>({ ...lease, metadata, spec: next }, { signal });
      this.observe(updated.spec ?? next);
      return true;
    } catch (err) {
      if (isConflict(err)) return false; // stale resourceVersion: someone else wrote first
      throw err;
    }
  }

  /** Remembers when this spec was first seen, so expiry is measured on our clock. */
  private observe(spec: LeaseSpec): void {
    const key = observationKey(spec);
    if (this.observed?.key !== key) this.observed = { key, at: performance.now() };
  }

  private key() {
    return { namespace: this.options.namespace, name: this.options.name };
  }
}

/** What identifies one renewal of a Lease: any change means the holder is alive (or another took over). */
export function observationKey(spec: LeaseSpec): string {
  return JSON.stringify([spec.holderIdentity ?? '', spec.renewTime ?? '', spec.acquireTime ?? '', spec.leaseTransitions ?? 0]);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
