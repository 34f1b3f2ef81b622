import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElectionConfigError, LeaderElectionLostError } from './errors.js';
import { LeaseElector, type Lease, type Leadership } from './lease-elector.js';
import { LeaseStore } from './lease-store.test-util.js';

const fast = { namespace: 'kube-system', name: 'ctrl', leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };
const terms: Leadership[] = [];
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await Promise.all(terms.splice(0).map((t) => t.release()));
});

function signal(): AbortSignal {
  const ac = new AbortController();
  aborts.push(ac);
  return ac.signal;
}

function leaseOf(store: LeaseStore): Lease {
  return store.objects.get('kube-system/ctrl') as Lease;
}

describe('LeaseElector', () => {
  it('creates the Lease with MicroTime timestamps and keeps renewing it', async () => {
    const store = new LeaseStore();
    const e = new LeaseElector(store.client().asClient(), { ...fast, identity: 'a' });
    const term = await e.acquire(signal());
    expect(term).toBeDefined();
    terms.push(term!);
    const lease = leaseOf(store);
    expect(lease.spec?.holderIdentity).toBe('a');
    expect(lease.spec?.leaseDurationSeconds).toBe(1);
    expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const firstRenew = lease.spec?.renewTime;
    await expect.poll(() => leaseOf(store).spec?.renewTime, { timeout: 2000 }).not.toBe(firstRenew);
    expect(term!.signal.aborted).toBe(false);
  });

  it('lets exactly one of two candidates lead, and hands over at once on release', async () => {
    const store = new LeaseStore();
    const a = new LeaseElector(store.client().asClient(), { ...fast, identity: 'a' });
    const b = new LeaseElector(store.client().asClient(), { ...fast, identity: 'b' });
    const sa = signal();
    const sb = signal();
    const campaigns = { a: a.acquire(sa), b: b.acquire(sb) };
    const [winner, term] = await Promise.race([campaigns.a.then((t) => ['a', t] as const), campaigns.b.then((t) => ['b', t] as const)]);
    const loserTerm = winner === 'a' ? campaigns.b : campaigns.a;
    // Observe longer than a lease period: the winner keeps renewing, so the loser never gets in.
    await new Promise((r) => setTimeout(r, 1500));
    expect(leaseOf(store).spec?.holderIdentity).toBe(winner);
    const started = performance.now();
    await term!.release();
    const next = await loserTerm;
    terms.push(next!);
    // Released, so no need to wait out the lease duration.
    expect(performance.now() - started).toBeLessThan(900);
    expect(leaseOf(store).spec?.holderIdentity).toBe(winner === 'a' ? 'b' : 'a');
  });

  it('steps down when it cannot renew, and another replica takes over after the lease expires', async () => {
    const store = new LeaseStore();
    const ca = store.client();
    const a = new LeaseElector(ca.asClient(), { ...fast, identity: 'a' });
    const b = new LeaseElector(store.client().asClient(), { ...fast, identity: 'b' });
    const ta = (await a.acquire(signal()))!;
    terms.push(ta);
    let bAcquiredAt = 0;
    const bTerm = b.acquire(signal()).then((t) => {
      bAcquiredAt = performance.now();
      return t;
    });
    ca.broken = true;
    const lostAt = await new Promise<number>((resolve) => ta.signal.addEventListener('abort', () => resolve(performance.now())));
    expect(ta.signal.reason).toBeInstanceOf(LeaderElectionLostError);
    const tb = (await bTerm)!;
    terms.push(tb);
    // b may only take over once a's claim has expired on b's clock, which is after a stepped down (never two leaders).
    expect(bAcquiredAt).toBeGreaterThan(lostAt);
    expect(leaseOf(store).spec?.holderIdentity).toBe('b');
    expect(leaseOf(store).spec?.leaseTransitions).toBe(1);
  });

  it('steps down at once when another replica took the Lease', async () => {
    const store = new LeaseStore();
    const a = new LeaseElector(store.client().asClient(), { ...fast, identity: 'a' });
    const ta = (await a.acquire(signal()))!;
    terms.push(ta);
    const lease = leaseOf(store);
    store.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await expect.poll(() => ta.signal.aborted, { timeout: 2000 }).toBe(true);
    expect(String((ta.signal.reason as Error).message)).toContain('another replica holds the lease');
    await ta.release();
    expect(leaseOf(store).spec?.holderIdentity).toBe('intruder');
  });

  it('does not take a Lease whose holder keeps renewing, and gives up campaigning when aborted', async () => {
    const store = new LeaseStore();
    const a = new LeaseElector(store.client().asClient(), { ...fast, identity: 'a' });
    terms.push((await a.acquire(signal()))!);
    const b = new LeaseElector(store.client().asClient(), { ...fast, identity: 'b' });
    const ac = new AbortController();
    const pending = b.acquire(ac.signal);
    await new Promise((r) => setTimeout(r, 1300));
    ac.abort();
    expect(await pending).toBeUndefined();
    expect(leaseOf(store).spec?.holderIdentity).toBe('a');
  });

  it('keeps campaigning through API errors', async () => {
    const store = new LeaseStore();
    const c = store.client();
    c.broken = true;
    const a = new LeaseElector(c.asClient(), { ...fast, identity: 'a' });
    const pending = a.acquire(signal());
    await expect.poll(() => c.failures).toBeGreaterThanOrEqual(2);
    c.broken = false;
    terms.push((await pending)!);
    expect(leaseOf(store).spec?.holderIdentity).toBe('a');
  });

  it('rejects unusable timings and coordinates', () => {
    const client = new LeaseStore().client().asClient();
    expect(() => new LeaseElector(client, { ...fast, leaseDurationMs: 500, renewDeadlineMs: 600 })).toThrow(LeaderElectionConfigError);
    expect(() => new LeaseElector(client, { ...fast, renewDeadlineMs: 100, retryPeriodMs: 100 })).toThrow(LeaderElectionConfigError);
    expect(() => new LeaseElector(client, { ...fast, namespace: '' })).toThrow(LeaderElectionConfigError);
  });
});
