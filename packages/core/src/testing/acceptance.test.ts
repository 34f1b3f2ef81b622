/**
 * The acceptance suite itself: a correct provider passes every case (registered as a provider would register them),
 * and each case fails, with the error a provider author needs, for a provider with the fault it targets.
 */
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptanceCases, type AcceptanceCase } from './cases.js';
import { AcceptanceFixtureError, AcceptanceTimeoutError, LeakError } from './errors.js';
import type { AcceptanceFleet, AcceptanceMember, ProviderAcceptanceFixture } from './fixture.js';
import { kubeconfigOf } from './fixtures.js';
import { describeProviderAcceptance } from './acceptance.js';
import { AcceptanceSession } from './session.js';
import { MapProvider, MemberMap, leakedTimers, type MapProviderFaults } from './map-provider.test-util.js';

/** A fleet of envtest servers behind a MemberMap; rotation switches a member to a fresh bearer token. */
function mapFixture(faults: MapProviderFaults = {}, waitTimeoutMs?: number): ProviderAcceptanceFixture {
  return {
    name: `MapProvider ${JSON.stringify(faults)}`,
    waitTimeoutMs,
    async setup(): Promise<AcceptanceFleet> {
      const host = await startApiServer({ name: 'host' });
      const servers = new Map<string, ApiServer>();
      const source = new MemberMap();
      let rotations = 0;
      return {
        host: kubeconfigOf(host),
        provider: () => new MapProvider(source, faults),
        async addMember() {
          const name = `member-${servers.size + 1}`;
          const server = await startApiServer({ name });
          servers.set(name, server);
          const member = { name, kubeconfig: kubeconfigOf(server) };
          source.set(name, member.kubeconfig);
          return member;
        },
        removeMember: (m: AcceptanceMember) => Promise.resolve(source.delete(m.name)),
        restoreMember: (m: AcceptanceMember) => Promise.resolve(source.set(m.name, m.kubeconfig)),
        rotateMember(m: AcceptanceMember) {
          const server = servers.get(m.name)!;
          const token = `rotated-${++rotations}`;
          server.addToken(token, 'admin');
          const rotated = { name: m.name, kubeconfig: kubeconfigOf(server.kubeconfig({ user: { token } })) };
          source.set(m.name, rotated.kubeconfig);
          return Promise.resolve(rotated);
        },
        async close() {
          await Promise.all([host, ...servers.values()].map((s) => s.close()));
        },
      };
    },
  };
}

describeProviderAcceptance(mapFixture());

function acceptanceCase(prefix: string): AcceptanceCase {
  const found = acceptanceCases.find((c) => c.title.startsWith(prefix));
  if (!found) throw new Error(`no case starting ${prefix}`);
  return found;
}

/** Runs one case against a faulty provider; resolves with what the case threw. */
async function failureOf(prefix: string, faults: MapProviderFaults): Promise<unknown> {
  const skip = (note: string): never => {
    throw new Error(`skipped: ${note}`);
  };
  try {
    await AcceptanceSession.run(mapFixture(faults, 3_000), (s) => acceptanceCase(prefix).run(s, skip));
  } catch (err) {
    return err;
  }
  throw new Error(`case "${prefix}" passed against a provider with ${JSON.stringify(faults)}`);
}

describe('each acceptance case fails for the fault it targets', () => {
  afterAll(() => leakedTimers.splice(0).forEach((t) => clearInterval(t)));

  it('a member engaged with another member’s connection is caught by the add-after-start case', async () => {
    const err = await failureOf('engages a member added after start', { crossWired: true });
    expect(err).toBeInstanceOf(AcceptanceTimeoutError);
    expect(String(err)).toMatch(/member-2.*reads marker after/);
  });

  it('get of an unknown name throwing a plain Error is caught', async () => {
    const err = await failureOf('get of an unknown cluster name', { plainNotFound: true });
    expect(String(err)).toMatch(/ClusterNotFoundError/);
  });

  it('a provider that drops field indexes is caught on engaged and later clusters', async () => {
    expect(String(await failureOf('field indexes registered before start', { dropIndexes: true }))).toMatch(
      /UnindexedFieldError|not indexed/i,
    );
    expect(String(await failureOf('field indexes reach a cluster engaged after', { dropIndexes: true }))).toMatch(
      /UnindexedFieldError|not indexed/i,
    );
  });

  it('a provider that keeps removed members engaged is caught', async () => {
    const err = await failureOf('removing a member disengages it', { keepRemoved: true });
    expect(err).toBeInstanceOf(AcceptanceTimeoutError);
    expect(String(err)).toMatch(/disengaged and not found.*has not aborted/);
  });

  it('a provider that leaves a timer running after stop is caught', async () => {
    const err = await failureOf('stopping the manager', { leakTimer: true });
    expect(err).toBeInstanceOf(LeakError);
    expect((err as LeakError).leaks.map((l) => l.kind)).toEqual(['timers']);
  });
});

describe('fixtures the suite cannot run are refused with what is wrong', () => {
  it('a fixture without setup, or with a bad timeout', () => {
    expect(() => describeProviderAcceptance({ name: 'x' } as unknown as ProviderAcceptanceFixture)).toThrow(AcceptanceFixtureError);
    expect(() => describeProviderAcceptance({ ...mapFixture(), waitTimeoutMs: -1 })).toThrow(/waitTimeoutMs/);
  });

  it('a fleet that can remove members but not restore them', async () => {
    const fixture = mapFixture();
    const half: ProviderAcceptanceFixture = {
      ...fixture,
      async setup() {
        const fleet = await fixture.setup();
        return { ...fleet, restoreMember: undefined };
      },
    };
    await expect(AcceptanceSession.run(half, () => Promise.resolve())).rejects.toThrow(/removeMember and restoreMember come together/);
  });
});
