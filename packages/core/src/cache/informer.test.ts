/**
 * SharedInformer behaviour driven by a scripted source: handler delivery, isolation, relist differences, resync and
 * status. The same paths against a real HTTP server are in informer-cache.integration.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, type LogLevel } from '../log/logger.js';
import { noopMetrics } from '../metrics/types.js';
import type { KubeObject } from '../object/types.js';
import { SharedInformer } from './informer.js';
import { cm, fail, httpError, page, ScriptedSource, WatchChannel, recorder } from './testing/scripted-source.js';

const kind = { apiVersion: 'v1', kind: 'ConfigMap' };

const running: Array<{ ac: AbortController; done: Promise<void> }> = [];
function run(informer: SharedInformer): AbortController {
  const ac = new AbortController();
  running.push({ ac, done: informer.run(ac.signal) });
  return ac;
}
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.ac.abort();
    await r.done;
  }
});

describe('SharedInformer', () => {
  it('delivers the initial list, then changes, and replays the store to late handlers', async () => {
    const ch = new WatchChannel();
    const source = new ScriptedSource([page([cm('a', '1'), cm('b', '2')], { resourceVersion: '2' })], [ch.step()]);
    const informer = new SharedInformer({ kind, source });
    const early = recorder();
    const earlyReg = informer.addEventHandler(early.handler);
    expect(informer.status().phase).toBe('pending');
    run(informer);
    await expect(informer.waitForSync(AbortSignal.timeout(5_000))).resolves.toBe(true);
    expect(earlyReg.hasSynced()).toBe(true);
    ch.push({ type: 'MODIFIED', object: cm('a', '3') });
    ch.push({ type: 'MODIFIED', object: cm('a', '3') }); // same resourceVersion: no update
    ch.push({ type: 'ADDED', object: cm('c', '4') });
    ch.push({ type: 'DELETED', object: cm('b', '5') });
    await vi.waitFor(() => expect(informer.status().resourceVersion).toBe('5'));
    expect(early.calls).toEqual(['add:a@1:initial', 'add:b@2:initial', 'update:a@1->3', 'add:c@4', 'delete:b']);
    expect(informer.status()).toMatchObject({ phase: 'watching', synced: true, failures: 0 });

    const late = recorder();
    const lateReg = informer.addEventHandler(late.handler);
    expect(lateReg.hasSynced()).toBe(true);
    expect(late.calls).toEqual(['add:a@3:initial', 'add:c@4:initial']);
    expect(informer.list().map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect(informer.get('ns', 'a')?.metadata.resourceVersion).toBe('3');

    lateReg.remove();
    lateReg.remove();
    ch.push({ type: 'ADDED', object: cm('d', '6') });
    await vi.waitFor(() => expect(early.calls.at(-1)).toBe('add:d@6'));
    expect(late.calls).toHaveLength(2);
  });

  it('delivers what changed while disconnected when a 410 forces a relist', async () => {
    const first = new WatchChannel();
    const second = new WatchChannel();
    const source = new ScriptedSource(
      [
        page([cm('kept', '1'), cm('changed', '2'), cm('gone', '3')], { resourceVersion: '3' }),
        page([cm('kept', '1'), cm('changed', '8'), cm('new', '9')], { resourceVersion: '9' }),
      ],
      [first.step(), second.step()],
    );
    const informer = new SharedInformer({ kind, source });
    const r = recorder();
    informer.addEventHandler(r.handler);
    run(informer);
    await informer.waitForSync(AbortSignal.timeout(5_000));
    first.push({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } });
    await vi.waitFor(() => expect(source.watchCalls).toHaveLength(2));
    expect(r.calls.slice(3).sort()).toEqual(['add:new@9', 'delete:gone:unknown', 'update:changed@2->8']);
    expect(informer.status()).toMatchObject({ phase: 'watching', failures: 0, resourceVersion: '9' });
    expect(informer.status().lastError).toBeUndefined();
  });

  it('isolates handlers that throw or reject: others still get every event, failures are counted', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const logged: Array<[LogLevel, string]> = [];
      const logger = createLogger({ level: 'debug', sink: (level, msg) => logged.push([level, msg]) });
      const ch = new WatchChannel();
      const informer = new SharedInformer({
        kind,
        source: new ScriptedSource([page([cm('a', '1')], { resourceVersion: '1' })], [ch.step()]),
        logger,
      });
      informer.addEventHandler({
        onAdd: () => {
          throw new Error('sync boom');
        },
        onUpdate: () => {
          throw new Error('sync boom');
        },
      });
      informer.addEventHandler({
        // The misuse under test: a handler returning a rejected promise must not become an unhandled rejection.
        // eslint-disable-next-line @typescript-eslint/no-misused-promises
        onAdd: async () => {
          throw new Error('async boom');
        },
      });
      const good = recorder();
      informer.addEventHandler(good.handler);
      run(informer);
      await informer.waitForSync(AbortSignal.timeout(5_000));
      ch.push({ type: 'ADDED', object: cm('b', '2') });
      ch.push({ type: 'MODIFIED', object: cm('b', '3') });
      await vi.waitFor(() => expect(good.calls).toEqual(['add:a@1:initial', 'add:b@2', 'update:b@2->3']));
      await vi.waitFor(() => expect(informer.status().handlerFailures).toBe(5));
      expect(informer.status().phase).toBe('watching');
      expect(logged.filter(([level, msg]) => level === 'error' && msg === 'event handler failed')).toHaveLength(5);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reports backoff with the last error and failure count, then recovers', async () => {
    const states: Array<[boolean, number]> = [];
    const metrics = {
      ...noopMetrics,
      informerState: (_c: string, _k: string, watching: boolean, failures: number) => states.push([watching, failures]),
    };
    let releaseList!: () => void;
    const listGate = new Promise<void>((resolve) => (releaseList = resolve));
    const source = new ScriptedSource(
      [
        fail(httpError(503, 'etcd unavailable')),
        fail(httpError(503, 'etcd unavailable')),
        async (req) => {
          await listGate;
          return page([cm('a', '1')], { resourceVersion: '1' })(req);
        },
      ],
      [new WatchChannel().step()],
    );
    const informer = new SharedInformer({ kind, source, metrics, clusterName: 'c1', watcher: { backoff: { initialMs: 1, maxMs: 2 } } });
    run(informer);
    await vi.waitFor(() => expect(informer.status().failures).toBe(2));
    const status = informer.status();
    expect(status.phase).toBe('backoff');
    expect(status.synced).toBe(false);
    expect(status.lastError?.name).toBe('InitialListFailed');
    expect(status.lastError?.message).toMatch(/etcd unavailable/);
    releaseList();
    await vi.waitFor(() => expect(informer.status().phase).toBe('watching'));
    expect(informer.status()).toMatchObject({ synced: true, failures: 0 });
    expect(informer.status().lastError).toBeUndefined();
    expect(states[0]).toEqual([false, 0]);
    expect(states).toContainEqual([false, 2]);
    expect(states.at(-1)).toEqual([true, 0]);
  });

  it('re-delivers every object as an update each resync period, only to handlers that asked', async () => {
    const informer = new SharedInformer({
      kind,
      source: new ScriptedSource([page([cm('a', '1'), cm('b', '2')], { resourceVersion: '2' })], [new WatchChannel().step()]),
    });
    const resynced = recorder();
    const plain = recorder();
    const reg = informer.addEventHandler(resynced.handler, { resyncPeriodMs: 20 });
    informer.addEventHandler(plain.handler);
    run(informer);
    await vi.waitFor(() => expect(resynced.calls.filter((c) => c === 'update:a@1->1').length).toBeGreaterThanOrEqual(2));
    expect(resynced.calls).toContain('update:b@2->2');
    expect(plain.calls).toEqual(['add:a@1:initial', 'add:b@2:initial']);
    reg.remove();
    const count = resynced.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(resynced.calls).toHaveLength(count);
    expect(() => informer.addEventHandler({}, { resyncPeriodMs: 0 })).toThrow(RangeError);
  });

  it('hands out frozen objects that handlers cannot change', async () => {
    const informer = new SharedInformer({
      kind,
      source: new ScriptedSource([page([cm('a', '1', { k: 'v' })], { resourceVersion: '1' })], [new WatchChannel().step()]),
    });
    let attempt: unknown;
    informer.addEventHandler({
      onAdd: (o: KubeObject) => {
        try {
          (o['data'] as Record<string, string>)['k'] = 'changed';
        } catch (err) {
          attempt = err;
        }
      },
    });
    run(informer);
    await informer.waitForSync(AbortSignal.timeout(5_000));
    expect(attempt).toBeInstanceOf(TypeError);
    expect(informer.get('ns', 'a')?.['data']).toEqual({ k: 'v' });
  });

  it('stops when aborted: phase stopped, sync waiters get false, a second run is refused', async () => {
    const informer = new SharedInformer({ kind, source: new ScriptedSource([], []) });
    const ac = new AbortController();
    const done = informer.run(ac.signal);
    const waiting = informer.waitForSync();
    ac.abort();
    await done;
    await expect(waiting).resolves.toBe(false);
    expect(informer.status().phase).toBe('stopped');
    await expect(informer.run(new AbortController().signal)).rejects.toThrow(/already started/);
  });
});
