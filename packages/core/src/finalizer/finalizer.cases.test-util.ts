/**
 * The finalizer registry over HTTP, run on the in-memory server (registry.integration.test.ts) and a real
 * kube-apiserver (toolkit.real.test.ts): the finalizer is added once, cleanup runs once on deletion and the object
 * goes, a stale second reconcile is done rather than failed, other controllers' finalizers survive, and the write is
 * locked on the resourceVersion.
 */
import { expect, it } from 'vitest';
import { isConflict, isNotFound } from '../client/errors.js';
import { widgets, type Tier, type Widget } from '../cluster/tier.test-util.js';
import { Finalizers } from './registry.js';

const FINALIZER = 'toolkit.example.com/cleanup';

export function finalizerCases(tier: () => Tier): void {
  it('adds the finalizer, runs cleanup once on deletion, removes it so the object goes; a stale copy later is done, not an error', async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    const key = { namespace: ns, name: 'w' };
    const cleaned: string[] = [];
    const finalizers = new Finalizers<Widget>().register(FINALIZER, (w) => void cleaned.push(w.metadata.name!));

    const w = await client.create<Widget>({ ...widgets, metadata: key, spec: { size: 1 } });
    const created = w.metadata.resourceVersion;
    expect(await finalizers.finalize(client, w)).toEqual({ updated: true, gone: false });
    expect(w.metadata.finalizers).toEqual([FINALIZER]);
    expect(w.metadata.resourceVersion).not.toBe(created);
    expect((await client.get<Widget>(widgets, key)).metadata.finalizers).toEqual([FINALIZER]);
    expect(await finalizers.finalize(client, w)).toEqual({ updated: false, gone: false });

    await client.delete(widgets, key);
    const deleting = await client.get<Widget>(widgets, key);
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();
    const stale = structuredClone(deleting);
    expect(await finalizers.finalize(client, deleting)).toEqual({ updated: true, gone: true });
    expect(cleaned).toEqual(['w']);
    await expect(client.get(widgets, key)).rejects.toSatisfy(isNotFound);

    // A second reconcile that read the object before it went: cleanup runs again (it must be idempotent), and the
    // removal's NotFound means the work is done.
    expect(await finalizers.finalize(client, stale)).toEqual({ updated: false, gone: true });
    expect(cleaned).toEqual(['w', 'w']);
  });

  it("keeps another controller's finalizer, and refuses to write over a newer object (Conflict)", async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    const key = { namespace: ns, name: 'shared' };
    const finalizers = new Finalizers<Widget>().register(FINALIZER, () => {});

    const w = await client.create<Widget>({ ...widgets, metadata: { ...key, finalizers: ['other.example.com/keep'] } });
    const stale = structuredClone(w);
    await finalizers.finalize(client, w);
    expect((await client.get<Widget>(widgets, key)).metadata.finalizers).toEqual(['other.example.com/keep', FINALIZER]);
    // The stale copy lacks our finalizer, but the object changed since: the locked write is refused.
    await expect(finalizers.finalize(client, stale)).rejects.toSatisfy(isConflict);

    await client.delete(widgets, key);
    const deleting = await client.get<Widget>(widgets, key);
    expect(await finalizers.finalize(client, deleting)).toEqual({ updated: true, gone: false });
    const left = await client.get<Widget>(widgets, key);
    expect(left.metadata.finalizers).toEqual(['other.example.com/keep']);
    await client.patch(widgets, key, { type: 'merge', body: { metadata: { finalizers: null } } });
    await expect(client.get(widgets, key)).rejects.toSatisfy(isNotFound);
  });
}
