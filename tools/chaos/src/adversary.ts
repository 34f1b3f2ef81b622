/**
 * The adversary and the writer. The writer keeps changing source objects in the members that are up (creates,
 * updates, deletes), through the members' admin clients. The adversary injects one fault at a time, chosen by the
 * seeded random source, and undoes the lasting ones a few seconds later; it counts what it did.
 */
import type { ControllerStats, ConfigMap } from './controller.js';
import { NAMESPACE, SOURCE_LABEL } from './controller.js';
import type { ChaosFleet, Member } from './fleet.js';
import type { Random } from './random.js';

export const FAULTS = [
  'drop-watches',
  'gone-410',
  'watch-error-500',
  'compact',
  'slow-2s',
  'down-3s',
  'replace-state-lost',
  'leave-and-join',
  'rotate-kubeconfig',
  'delete-derived',
  'reconciler-throws',
] as const;
/** Faults of the host, whose Leases sharded replicas and leader election live on: only with replicas. */
export const HOST_FAULTS = ['host-down-3s', 'host-slow-2s'] as const;
export type Fault = (typeof FAULTS)[number] | (typeof HOST_FAULTS)[number];

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Adversary {
  readonly injected: Map<Fault, number>;
  readonly writes = { created: 0, updated: 0, deleted: 0, failed: 0 };
  private readonly pending = new Set<Promise<unknown>>();
  private readonly faultsToPick: readonly Fault[];
  private hostDown = false;

  /** `hostFaults`: also take the host's API down and slow it (its Leases), for sharded replicas. */
  constructor(
    private readonly fleet: ChaosFleet,
    private readonly controller: ControllerStats,
    private readonly random: Random,
    hostFaults = false,
  ) {
    this.faultsToPick = hostFaults ? [...FAULTS, ...HOST_FAULTS] : FAULTS;
    this.injected = new Map(this.faultsToPick.map((f) => [f, 0]));
  }

  /** Injects faults until `until`, one every 0.5–2 s; resolves once every lasting fault is undone. */
  async faults(until: number): Promise<void> {
    while (Date.now() < until) {
      await sleep(500 + this.random.int(1500));
      const fault = this.random.pick(this.faultsToPick);
      const member = this.random.pick(this.fleet.members);
      this.injected.set(fault, this.injected.get(fault)! + 1);
      this.track(this.inject(fault, member));
    }
    await Promise.allSettled(this.pending);
  }

  /** Changes sources until `until`, about 20 writes a second over the members that are joined and up. */
  async write(until: number): Promise<void> {
    let n = 0;
    while (Date.now() < until) {
      await sleep(50);
      const m = this.random.pick(this.fleet.members);
      if (m.down) continue;
      const name = `src-${this.random.int(30)}`;
      const op = this.random.int(3);
      try {
        if (op === 0) {
          await m.admin.apiReader.delete(configMaps, { namespace: NAMESPACE, name });
          this.writes.deleted++;
        } else {
          const body: ConfigMap = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { namespace: NAMESPACE, name, labels: { [SOURCE_LABEL]: 'true' } },
            data: { value: String(++n) },
          };
          const existing = await m.admin.apiReader.get<ConfigMap>(configMaps, { namespace: NAMESPACE, name }).catch(() => undefined);
          if (existing) {
            await m.admin.apiReader.update({ ...body, metadata: { ...existing.metadata, labels: body.metadata.labels } });
            this.writes.updated++;
          } else {
            await m.admin.apiReader.create(body);
            this.writes.created++;
          }
        }
      } catch {
        this.writes.failed++; // not found, conflict, server down: the next write will do
      }
    }
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch(() => {});
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  private async inject(fault: Fault, m: Member): Promise<void> {
    const faults = m.server.faults;
    switch (fault) {
      case 'drop-watches':
        return faults.dropWatches();
      case 'gone-410':
        return faults.failNextWatch(410);
      case 'watch-error-500':
        return faults.failNextWatch(500);
      case 'compact':
        return m.server.compact();
      case 'slow-2s':
        faults.setLatency(2_000);
        await sleep(5_000);
        return faults.setLatency(0);
      case 'down-3s':
        if (m.down) return;
        await this.fleet.down(m);
        await sleep(3_000);
        return this.fleet.up(m);
      case 'replace-state-lost':
        if (m.down) return;
        return this.fleet.replace(m);
      case 'leave-and-join':
        if (!m.joined) return;
        await this.fleet.leave(m);
        await sleep(3_000);
        return this.fleet.join(m);
      case 'rotate-kubeconfig':
        return this.fleet.rotate(m);
      case 'delete-derived': {
        if (m.down) return;
        const derived = (await m.admin.apiReader.list<ConfigMap>(configMaps, { namespace: NAMESPACE })).items.filter((c) =>
          c.metadata.name?.endsWith('-derived'),
        );
        if (derived.length > 0)
          await m.admin.apiReader.delete(configMaps, { namespace: NAMESPACE, name: this.random.pick(derived).metadata.name! });
        return;
      }
      case 'host-down-3s':
        if (this.hostDown) return;
        this.hostDown = true;
        await this.fleet.host.stop();
        await sleep(3_000);
        await this.fleet.host.restart();
        this.hostDown = false;
        return;
      case 'host-slow-2s':
        this.fleet.host.faults.setLatency(2_000);
        await sleep(5_000);
        return this.fleet.host.faults.setLatency(0);
      case 'reconciler-throws':
        this.controller.throwRate = 0.3;
        await sleep(4_000);
        this.controller.throwRate = 0;
        return;
    }
  }
}
