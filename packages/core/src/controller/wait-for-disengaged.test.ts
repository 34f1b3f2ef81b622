/**
 * Controller.waitForDisengaged: a disengaged cluster counts as stopped only once no reconcile of it runs any more,
 * also one whose reconciler ignores its aborted signal; other clusters' reconciles do not hold it up.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import { newController, type Controller } from './controller.js';
import { ScriptedSource } from './scripted-source.test-util.js';

const stops: { stop: AbortController; done: Promise<void> }[] = [];
/** Gates still closed when a test ends (it failed early): opened first, or stopping would wait for them forever. */
const gates: (() => void)[] = [];
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done;
  }
});

/** A started controller whose reconciler ignores its signal and blocks on `stuck` requests until `unblock()`. */
function stubborn() {
  let unblock!: () => void;
  const gate = new Promise<void>((resolve) => {
    unblock = resolve;
  });
  gates.push(unblock);
  const started: string[] = [];
  const finished: string[] = [];
  const contexts = new Map<string, ReconcileContext>();
  const c: Controller = newController('stubborn', {
    logger: silentLogger,
    maxConcurrentReconciles: 2,
    reconciler: async (req: Request, ctx: ReconcileContext) => {
      const k = `${req.clusterName}/${req.name}`;
      started.push(k);
      contexts.set(k, ctx);
      if (req.name === 'stuck') await gate; // never looks at ctx.signal
      finished.push(k);
    },
  });
  const src = new ScriptedSource();
  c.multiClusterWatch(src);
  const stop = new AbortController();
  stops.push({ stop, done: c.start(stop.signal) });
  return { c, src, started, finished, contexts, unblock };
}

/** Tracks whether a promise has settled, and with what. */
function track<T>(p: Promise<T>) {
  const state: { settled: boolean; value: T | undefined } = { settled: false, value: undefined };
  void p.then((v) => {
    state.settled = true;
    state.value = v;
  });
  return state;
}

describe('Controller.waitForDisengaged', () => {
  it("stays pending while a disengaged cluster's reconcile ignores its signal, and resolves true once it returns", async () => {
    const { c, src, started, finished, contexts, unblock } = stubborn();
    const a = new AbortController();
    await c.engage(a.signal, 'a', new ScriptedCluster('a'));
    await c.engage(new AbortController().signal, 'b', new ScriptedCluster('b'));
    src.emit('a', { name: 'stuck' });
    await vi.waitFor(() => expect(started).toEqual(['a/stuck']));

    a.abort();
    expect(contexts.get('a/stuck')!.signal.aborted).toBe(true);
    expect(c.engagedClusters()).toEqual(['b']);
    const drained = track(c.waitForDisengaged(new AbortController().signal, 'a'));
    // The other worker keeps reconciling cluster b meanwhile; the wait for a does not end with those.
    for (let i = 0; i < 3; i++) {
      src.emit('b', { name: `b-${i}` });
      await vi.waitFor(() => expect(finished).toContain(`b/b-${i}`));
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(drained.settled).toBe(false);
    expect(finished).not.toContain('a/stuck');

    unblock();
    await vi.waitFor(() => expect(drained).toEqual({ settled: true, value: true }));
    expect(finished).toContain('a/stuck');
  });

  it('resolves true at once for a cluster that is not engaged and has nothing running', async () => {
    const { c } = stubborn();
    await expect(c.waitForDisengaged(new AbortController().signal, 'never-engaged')).resolves.toBe(true);
  });

  it('waits for a still-engaged cluster to be disengaged, and resolves false when its own signal aborts first', async () => {
    const { c } = stubborn();
    const a = new AbortController();
    await c.engage(a.signal, 'a', new ScriptedCluster('a'));
    const giveUp = new AbortController();
    const first = track(c.waitForDisengaged(giveUp.signal, 'a'));
    const second = track(c.waitForDisengaged(new AbortController().signal, 'a'));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(first.settled || second.settled).toBe(false);
    giveUp.abort();
    await vi.waitFor(() => expect(first).toEqual({ settled: true, value: false }));
    expect(second.settled).toBe(false);
    a.abort();
    await vi.waitFor(() => expect(second).toEqual({ settled: true, value: true }));
  });
});
