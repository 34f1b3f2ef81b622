/**
 * The cases of the provider acceptance suite: the behaviour every provider owes the runtime, checked through a real
 * manager (so it holds however the provider is started) against the members of a fresh fleet per case. A case
 * needing a capability the fleet lacks (adding after start, removal, rotation) skips itself, saying why. Kept apart
 * from the vitest registration so the suite's own tests can run one case against a faulty provider.
 */
import { expect } from 'vitest';
import type { Cluster } from '../cluster/types.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { KubeObject } from '../object/types.js';
import { baselineHandles, expectNoLeaks } from './leaks.js';
import { MARKER_LABEL, type AcceptanceSession } from './session.js';

export interface AcceptanceCase {
  readonly title: string;
  /** `skip` ends the case as skipped (it throws). */
  run(s: AcceptanceSession, skip: (note: string) => never): Promise<void>;
}

/** The fields the index cases register: the marker label's value, once before start and once after. */
const EARLY_FIELD = 'acceptance.marker.early';
const LATE_FIELD = 'acceptance.marker.late';
/** A name no provider engages. */
export const UNKNOWN_CLUSTER = 'acceptance-unknown-cluster-0f3c9a';

const markerOf = (obj: KubeObject): string[] => {
  const value = obj.metadata.labels?.[MARKER_LABEL];
  return value === undefined ? [] : [value];
};

function needsAddAfterStart(s: AcceptanceSession, skip: (note: string) => never): void {
  if (!s.addsAfterStart) skip('the fleet adds members only before start (addsAfterStart: false)');
}

export const acceptanceCases: readonly AcceptanceCase[] = [
  {
    title: 'engages a member present before start; getCluster answers the engaged instance',
    async run(s) {
      const member = await s.fleet.addMember();
      const marker = await s.writeMarker(member, 'before');
      await s.start();
      await s.engaged(member.name, marker);
    },
  },
  {
    title: 'engages a member added after start, each cluster reaching its own API server',
    async run(s, skip) {
      needsAddAfterStart(s, skip);
      const before = await s.fleet.addMember();
      const beforeMarker = await s.writeMarker(before, 'before');
      await s.start();
      const beforeCluster = await s.engaged(before.name, beforeMarker);
      const after = await s.fleet.addMember();
      const afterMarker = await s.writeMarker(after, 'after');
      const afterCluster = await s.engaged(after.name, afterMarker);
      await expect(s.readMarker(beforeCluster, afterMarker), `${before.name} reads ${after.name}'s marker`).rejects.toThrow();
      await expect(s.readMarker(afterCluster, beforeMarker), `${after.name} reads ${before.name}'s marker`).rejects.toThrow();
    },
  },
  {
    title: 'get of an unknown cluster name throws ClusterNotFoundError, from the provider and the manager',
    async run(s) {
      const member = await s.fleet.addMember();
      const marker = await s.writeMarker(member, 'known');
      const manager = await s.start();
      await s.engaged(member.name, marker);
      await expect(s.provider!.get(UNKNOWN_CLUSTER)).rejects.toBeInstanceOf(ClusterNotFoundError);
      await expect(manager.getCluster(UNKNOWN_CLUSTER)).rejects.toBeInstanceOf(ClusterNotFoundError);
    },
  },
  {
    title: 'field indexes registered before start and after engagement reach an engaged cluster',
    async run(s) {
      const member = await s.fleet.addMember();
      const marker = await s.writeMarker(member, 'indexed');
      await s.writeMarker(member, 'decoy');
      const manager = await s.start();
      await manager.getFieldIndexer().indexField(s.kind, EARLY_FIELD, markerOf);
      const cluster = await s.engaged(member.name, marker);
      await manager.getFieldIndexer().indexField(s.kind, LATE_FIELD, markerOf);
      await expectIndexed(s, cluster, marker);
    },
  },
  {
    title: 'field indexes reach a cluster engaged after they were registered',
    async run(s, skip) {
      needsAddAfterStart(s, skip);
      const before = await s.fleet.addMember();
      const manager = await s.start();
      await manager.getFieldIndexer().indexField(s.kind, EARLY_FIELD, markerOf);
      await s.engaged(before.name, await s.writeMarker(before, 'before'));
      await manager.getFieldIndexer().indexField(s.kind, LATE_FIELD, markerOf);
      const after = await s.fleet.addMember();
      const marker = await s.writeMarker(after, 'indexed');
      await s.writeMarker(after, 'decoy');
      await expectIndexed(s, await s.engaged(after.name, marker), marker);
    },
  },
  {
    title: 'removing a member disengages it; restored, it is engaged again as a new instance',
    async run(s, skip) {
      const fleet = s.fleet;
      if (!fleet.removeMember || !fleet.restoreMember) return skip('the fleet cannot remove members (no removeMember)');
      const member = await fleet.addMember();
      const marker = await s.writeMarker(member, 'removable');
      await s.start();
      const first = await s.engaged(member.name, marker);
      const engagement = s.probe.live(member.name)!;
      await fleet.removeMember(member);
      await s.until(`removed member ${JSON.stringify(member.name)} is disengaged and not found`, async () => {
        if (!engagement.signal.aborted) throw new Error('its engagement signal has not aborted');
        await expect(s.manager!.getCluster(member.name)).rejects.toBeInstanceOf(ClusterNotFoundError);
      });
      await fleet.restoreMember(member);
      // A fresh marker: removal may take the member's objects with it (kcp deletes a binding's objects with it).
      const again = await s.until(`restored member ${JSON.stringify(member.name)} accepts a marker`, () =>
        s.writeMarker(member, 'restored'),
      );
      const second = await s.engaged(member.name, again, first);
      expect(second).not.toBe(first);
    },
  },
  {
    title: "rotating a member's connection re-engages it as a new instance",
    async run(s, skip) {
      const fleet = s.fleet;
      if (!fleet.rotateMember) return skip('the fleet cannot rotate members (no rotateMember)');
      const member = await fleet.addMember();
      await s.start();
      const first = await s.engaged(member.name, await s.writeMarker(member, 'rotating'));
      const engagement = s.probe.live(member.name)!;
      const rotated = await fleet.rotateMember(member);
      expect(rotated.name, 'rotation keeps the name').toBe(member.name);
      const second = await s.engaged(member.name, await s.writeMarker(rotated, 'rotated'), first);
      expect(second).not.toBe(first);
      expect(engagement.signal.aborted, 'the old engagement is disengaged').toBe(true);
    },
  },
  {
    title: 'stopping the manager disengages every cluster and leaves no socket, timer, child process or watcher',
    async run(s) {
      const member = await s.fleet.addMember();
      const baseline = await baselineHandles();
      const marker = await s.writeMarker(member, 'stopping');
      await s.start();
      await s.engaged(member.name, marker);
      await s.stop();
      expect(
        s.probe.allLive().map((e) => e.name),
        'engagements left after stop',
      ).toEqual([]);
      await expectNoLeaks(baseline, { timeoutMs: s.timeoutMs });
    },
  },
];

/** Both index fields find exactly the marker in `cluster`'s cache, not the decoy beside it. */
async function expectIndexed(s: AcceptanceSession, cluster: Cluster, marker: string): Promise<void> {
  for (const field of [EARLY_FIELD, LATE_FIELD]) {
    const found = await cluster.cache.list(s.kind, { namespace: s.namespaceOf(marker), fieldSelector: { [field]: marker } });
    expect(
      found.items.map((o) => o.metadata.name),
      `index ${field} in ${cluster.name}`,
    ).toEqual([marker]);
  }
}
