/** Fault hooks of test backends: dropped watches and injected watch failures (skipped for backends without them). */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { cmPath } from './helpers.js';

export function faultCases(ctx: SuiteContext): void {
  test('faults: dropWatches breaks open watch connections', async (t) => {
    const faults = ctx.backend.faults;
    if (!faults) return t.skip('backend has no fault hooks');
    const ns = await ctx.namespace();
    const start = (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion;
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: start });
    faults.dropWatches();
    await w.waitForEnd(5000);
    expect(w.broken).toBe(true);
  });

  test('faults: failNextWatch(410) answers the next watch with a 410 ERROR event, then closes', async (t) => {
    const faults = ctx.backend.faults;
    if (!faults) return t.skip('backend has no fault hooks');
    const ns = await ctx.namespace();
    faults.failNextWatch(410);
    const w = await ctx.client.watch(cmPath(ns));
    const events = await w.waitForEnd(5000);
    expect(events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) }]);
    // Only the next watch fails.
    const again = await ctx.client.watch(cmPath(ns), {
      resourceVersion: (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion,
      timeoutSeconds: 1,
    });
    expect((await again.waitForEnd(5000)).filter((e) => e.type === 'ERROR')).toEqual([]);
  });
}
