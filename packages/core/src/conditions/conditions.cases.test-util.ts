/**
 * Condition semantics over HTTP, run on the in-memory server (conditions.integration.test.ts) and a real
 * kube-apiserver (toolkit.real.test.ts): conditions written with updateStatus pass the API's validation of
 * metav1.Condition, a no-op set writes nothing, and lastTransitionTime moves only with status.
 */
import { expect, it } from 'vitest';
import { widgets, type Tier, type Widget } from '../cluster/tier.test-util.js';
import { findStatusCondition, isStatusConditionFalse, isStatusConditionTrue, setStatusCondition } from './conditions.js';

export function conditionCases(tier: () => Tier): void {
  it('conditions round-trip through the status subresource; lastTransitionTime moves only with status, observedGeneration follows spec', async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    let w = await client.create<Widget>({ ...widgets, metadata: { namespace: ns, name: 'w' }, spec: { size: 1 } });
    const status = (w.status ??= {});
    const t0 = '2026-01-01T00:00:00Z';
    expect(
      setStatusCondition((status.conditions ??= []), {
        type: 'Ready',
        status: 'False',
        reason: 'Provisioning',
        message: 'waiting for capacity',
        observedGeneration: w.metadata.generation,
        lastTransitionTime: t0,
      }),
    ).toBe(true);
    w = await client.updateStatus(w);
    expect(findStatusCondition(w.status?.conditions, 'Ready')).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'Provisioning',
      message: 'waiting for capacity',
      observedGeneration: 1,
      lastTransitionTime: t0,
    });

    // The same facts again: nothing changed, so nothing to write, and the stored object stays as it was.
    const rv = w.metadata.resourceVersion;
    expect(
      setStatusCondition(w.status!.conditions!, {
        type: 'Ready',
        status: 'False',
        reason: 'Provisioning',
        message: 'waiting for capacity',
        observedGeneration: 1,
      }),
    ).toBe(false);

    // A spec change bumps the generation; the condition records which generation it describes, time unchanged.
    w = await client.update<Widget>({ ...w, spec: { size: 2 } });
    expect(w.metadata.generation).toBe(2);
    expect(w.metadata.resourceVersion).not.toBe(rv);
    setStatusCondition(w.status!.conditions!, {
      type: 'Ready',
      status: 'False',
      reason: 'Provisioning',
      message: 'waiting for capacity',
      observedGeneration: w.metadata.generation,
    });
    w = await client.updateStatus(w);
    expect(findStatusCondition(w.status?.conditions, 'Ready')).toMatchObject({ observedGeneration: 2, lastTransitionTime: t0 });

    // The status flips: the transition time moves to now (whole seconds, accepted as date-time by the API).
    const before = new Date(Math.floor(Date.now() / 1000) * 1000);
    setStatusCondition(w.status!.conditions!, { type: 'Ready', status: 'True', reason: 'Provisioned', observedGeneration: 2 });
    setStatusCondition(w.status!.conditions!, { type: 'Degraded', status: 'False', reason: 'AsExpected' });
    w = await client.updateStatus(w);
    const read = await client.get<Widget>(widgets, { namespace: ns, name: 'w' });
    const ready = findStatusCondition(read.status?.conditions, 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: 'Provisioned', message: '' });
    expect(new Date(ready!.lastTransitionTime).getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(isStatusConditionTrue(read.status?.conditions, 'Ready')).toBe(true);
    expect(isStatusConditionFalse(read.status?.conditions, 'Degraded')).toBe(true);
  });
}
