/**
 * One acceptance case's world: the fixture's fleet, a real manager over its host with the provider under test, and
 * the probe. It writes marker objects into members through their own kubeconfigs, waits for conditions without
 * sleeping blindly (and fails fast, with the cause, if the manager dies meanwhile), and tears everything down in
 * order — manager first, then the fleet — whether the case passed or not.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { newCluster } from '../cluster/cluster.js';
import type { Cluster } from '../cluster/types.js';
import { silentLogger } from '../log/logger.js';
import { newManager, type MultiClusterManager } from '../manager/manager.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Provider } from '../multicluster/types.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import { AcceptanceTimeoutError, ManagerFailedError } from './errors.js';
import { type AcceptanceFleet, type AcceptanceMember, type ProviderAcceptanceFixture, validateFleet } from './fixture.js';
import { configMapKind } from './fixtures.js';
import { EngagementProbe } from './probe.js';

/** The label marker objects carry; its value says which member and which step wrote them. */
export const MARKER_LABEL = 'acceptance.multicluster-runtime.io/marker';

export class AcceptanceSession {
  readonly probe = new EngagementProbe();
  readonly kind: ObjectKind;
  readonly namespace: string;
  readonly timeoutMs: number;
  provider?: Provider;
  manager?: MultiClusterManager;
  private stopManager?: AbortController;
  private managerDone?: Promise<void>;
  private managerError?: { error: unknown };
  private markers = 0;
  /** The namespace each marker was written in (a member's own, or the fixture's). */
  private readonly markerNamespaces = new Map<string, string>();

  private constructor(
    readonly fixture: ProviderAcceptanceFixture,
    readonly fleet: AcceptanceFleet,
  ) {
    this.kind = fixture.markerKind ?? configMapKind;
    this.namespace = fixture.markerNamespace ?? 'default';
    this.timeoutMs = fixture.waitTimeoutMs ?? 30_000;
  }

  /** Runs `body` in a fresh session and always tears it down; the body's failure wins over a teardown failure. */
  static async run(fixture: ProviderAcceptanceFixture, body: (s: AcceptanceSession) => Promise<void>): Promise<void> {
    const fleet = await fixture.setup();
    const session = new AcceptanceSession(fixture, fleet);
    let failed = false;
    try {
      validateFleet(fleet);
      await body(session);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      try {
        await session.stop();
      } finally {
        // A fleet that failed to close after a failed case must not hide the case's own failure.
        await fleet.close().catch((err: unknown) => {
          if (!failed) throw err;
        });
      }
    }
  }

  get addsAfterStart(): boolean {
    return this.fleet.addsAfterStart !== false;
  }

  /** Builds the provider and a manager over the host with the probe added, and starts the manager. */
  async start(): Promise<MultiClusterManager> {
    this.provider = await this.fleet.provider();
    const manager = newManager(this.fleet.host, this.provider, { logger: this.fixture.logger ?? silentLogger });
    manager.add(this.probe);
    this.manager = manager;
    this.stopManager = new AbortController();
    this.managerDone = manager.start(this.stopManager.signal).catch((error: unknown) => {
      this.managerError = { error };
    });
    return manager;
  }

  /** Stops the manager and waits for its graceful shutdown; rethrows a failure of its run. Idempotent. */
  async stop(): Promise<void> {
    this.stopManager?.abort();
    await this.managerDone;
    this.managerDone = undefined;
    if (this.managerError) {
      const { error } = this.managerError;
      this.managerError = undefined;
      throw new ManagerFailedError('it stopped', error);
    }
  }

  /**
   * Writes a marker object into `member` through its own kubeconfig and returns the marker's value, unique per
   * session. The object's name is the value.
   */
  async writeMarker(member: AcceptanceMember, step: string): Promise<string> {
    const value = `${step}-${++this.markers}`;
    this.markerNamespaces.set(value, member.markerNamespace ?? this.namespace);
    const writer = newCluster(member.kubeconfig, { name: `acceptance-writer-${member.name}` });
    try {
      await writer.client.create(this.marker(value));
    } finally {
      await writer.close();
    }
    return value;
  }

  private marker(value: string): KubeObject {
    return { ...this.kind, metadata: { name: value, namespace: this.namespaceOf(value), labels: { [MARKER_LABEL]: value } } };
  }

  /** The namespace marker `value` was written in. */
  namespaceOf(value: string): string {
    return this.markerNamespaces.get(value) ?? this.namespace;
  }

  /**
   * Reads the marker through `cluster`'s apiReader (from its server), its client (what controllers read) and its
   * cache; throws if any misses it.
   */
  async readMarker(cluster: Cluster, value: string): Promise<void> {
    const key = { namespace: this.namespaceOf(value), name: value };
    const direct = await cluster.apiReader.get(this.kind, key);
    const client = await cluster.client.get(this.kind, key);
    const cached = await cluster.cache.get(this.kind, key);
    for (const obj of [direct, client, cached]) {
      if (obj.metadata.labels?.[MARKER_LABEL] !== value)
        throw new Error(`marker ${value} read back with labels ${JSON.stringify(obj.metadata.labels)}`);
    }
  }

  /** The engaged cluster `name` as the manager answers it, once the probe saw it engaged and it reads `marker`. */
  async engaged(name: ClusterName, marker: string, notInstance?: Cluster): Promise<Cluster> {
    return this.until(
      `cluster ${JSON.stringify(name)} is engaged${notInstance ? ' as a new instance' : ''} and reads marker ${marker}`,
      async () => {
        const engagement = this.probe.live(name);
        if (!engagement) throw new Error(`no live engagement of ${JSON.stringify(name)} reached the manager's runnables`);
        if (engagement.cluster === notInstance) throw new Error(`${JSON.stringify(name)} is still engaged as the old instance`);
        const cluster = await this.manager!.getCluster(name);
        if (cluster !== engagement.cluster)
          throw new Error(`getCluster(${JSON.stringify(name)}) answers another instance than the one engaged`);
        await this.readMarker(cluster, marker);
        return cluster;
      },
    );
  }

  /**
   * Polls `check` until it resolves, then returns its value; fails with the last error after the session's timeout,
   * or at once if the manager failed meanwhile.
   */
  async until<T>(what: string, check: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    let last: unknown;
    for (;;) {
      if (this.managerError) throw new ManagerFailedError(what, this.managerError.error);
      try {
        return await check();
      } catch (err) {
        last = err;
      }
      if (Date.now() >= deadline) throw new AcceptanceTimeoutError(what, this.timeoutMs, { cause: last });
      await delay(50);
    }
  }
}
