/**
 * createOrUpdate, createOrPatch and server-side apply over HTTP, run on the in-memory server
 * (create-or-update.integration.test.ts) and a real kube-apiserver (toolkit.real.test.ts).
 */
import { expect, it } from 'vitest';
import { isConflict } from '../client/errors.js';
import { widgets, type Tier, type Widget } from '../cluster/tier.test-util.js';
import type { KubeObject } from '../object/types.js';
import { MutateChangedKeyError } from './errors.js';
import { createOrPatch, createOrUpdate } from './create-or-update.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export function createOrUpdateCases(tier: () => Tier): void {
  it('createOrUpdate: created, then unchanged without a write, then updated; obj holds the stored object', async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    const desired = { color: 'blue' };
    const mutate = (cm: ConfigMap) => {
      cm.data = { ...cm.data, ...desired };
    };

    const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'settings' } };
    expect(await createOrUpdate(client, cm, mutate)).toBe('created');
    expect(cm.metadata.uid).toBeTruthy();
    const created = cm.metadata.resourceVersion;

    const again: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'settings' } };
    expect(await createOrUpdate(client, again, mutate)).toBe('unchanged');
    expect(again.metadata.resourceVersion).toBe(created);
    expect(
      (await client.get<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: ns, name: 'settings' })).metadata.resourceVersion,
    ).toBe(created);

    desired.color = 'green';
    expect(await createOrUpdate(client, again, mutate)).toBe('updated');
    expect(again.data).toEqual({ color: 'green' });
    expect(again.metadata.resourceVersion).not.toBe(created);

    await expect(
      createOrUpdate(client, again, (o) => {
        o.metadata.name = 'renamed';
      }),
    ).rejects.toBeInstanceOf(MutateChangedKeyError);
  });

  it('createOrPatch: sends only what mutate changed, patches status through its subresource, and says which', async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    const key = { namespace: ns, name: 'w' };
    const w = (): Widget => ({ ...widgets, metadata: { ...key } });

    expect(await createOrPatch(client, w(), (o) => void (o.spec = { size: 1 }))).toBe('created');
    // Another writer sets a field this controller does not manage; a patch leaves it alone.
    await client.patch(widgets, key, { type: 'merge', body: { spec: { color: 'red' } } });

    expect(await createOrPatch(client, w(), (o) => void (o.spec = { ...o.spec, size: 1 }))).toBe('unchanged');
    const spec = w();
    expect(await createOrPatch(client, spec, (o) => void (o.spec = { ...o.spec, size: 2 }))).toBe('updated');
    expect(spec.spec).toEqual({ size: 2, color: 'red' });

    const status = w();
    expect(await createOrPatch(client, status, (o) => void (o.status = { phase: 'Ready' }))).toBe('updatedStatusOnly');
    expect(status.status).toEqual({ phase: 'Ready' });
    const both = w();
    expect(
      await createOrPatch(client, both, (o) => {
        o.spec = { ...o.spec, size: 3 };
        o.status = { ...o.status, phase: 'Scaling' };
      }),
    ).toBe('updatedStatus');
    const stored = await client.get<Widget>(widgets, key);
    expect(stored.spec).toEqual({ size: 3, color: 'red' });
    expect(stored.status).toEqual({ phase: 'Scaling' });
    expect(both.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  });

  it('server-side apply: fields owned by another manager conflict unless forced, then change hands', async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    const intent = (color: string): Widget => ({ ...widgets, metadata: { namespace: ns, name: 'applied' }, spec: { color } });

    const first = await client.apply(intent('red'), { fieldManager: 'team-a' });
    expect(first.spec).toEqual({ color: 'red' });
    // Applying the same intent again changes nothing.
    expect((await client.apply(intent('red'), { fieldManager: 'team-a' })).metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    const conflict = await client.apply(intent('blue'), { fieldManager: 'team-b' }).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect(String(conflict)).toContain('team-a');

    const forced = await client.apply(intent('blue'), { fieldManager: 'team-b', force: true });
    expect(forced.spec).toEqual({ color: 'blue' });
    const owners = (forced.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}/${m.operation}`);
    expect(owners).toContain('team-b/Apply');
  });
}
