import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, silentLogger, type LogFields, type Logger } from '../log/logger.js';
import type { MetricsRecorder, ReconcileOutcome } from '../metrics/types.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import { TerminalError } from '../reconcile/errors.js';
import type { ReconcileContext, ReconcileFunc, Request } from '../reconcile/types.js';
import { newController, type Controller, type ControllerOptions } from './controller.js';
import { ControllerAlreadyStartedError, ControllerOptionsError, ControllerEngageFailedError, WaitForSyncTimeoutError } from './errors.js';
import { ScriptedSource, ScriptedStaticSource } from './scripted-source.test-util.js';

/** Records every reconcile outcome. */
class RecordingMetrics implements MetricsRecorder {
  readonly outcomes: { cluster: string; outcome: ReconcileOutcome }[] = [];
  maxActive = 0;
  engaged = 0;
  reconcileDone(_c: string, cluster: string, outcome: ReconcileOutcome): void {
    this.outcomes.push({ cluster, outcome });
  }
  activeWorkers(_c: string, n: number): void {
    this.maxActive = Math.max(this.maxActive, n);
  }
  queueAdd(): void {}
  queueDepth(): void {}
  queueLatency(): void {}
  queueRetry(): void {}
  informerState(): void {}
  engagedClusters(_o: string, n: number): void {
    this.engaged = n;
  }
  forgetCluster(): void {}
}

const key = (r: Request) => `${r.clusterName}/${r.namespace}/${r.name}`;

/** A reconciler that records calls and can be told to block on chosen names until released. */
class Recorder {
  readonly calls: string[] = [];
  readonly contexts = new Map<string, ReconcileContext>();
  private readonly gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  behaviour: ReconcileFunc = async () => {};

  block(name: string): void {
    let open!: () => void;
    const promise = new Promise<void>((r) => {
      open = r;
    });
    this.gates.set(name, { promise, open });
  }
  release(name: string): void {
    this.gates.get(name)?.open();
    this.gates.delete(name);
  }
  readonly fn: ReconcileFunc = async (req, ctx) => {
    this.calls.push(key(req));
    this.contexts.set(key(req), ctx);
    const gate = this.gates.get(req.name);
    if (gate) await gate.promise;
    return this.behaviour(req, ctx);
  };
  count(k: string): number {
    return this.calls.filter((c) => c === k).length;
  }
}

const running: { controller: Controller; stop: AbortController; done: Promise<void> }[] = [];

function make(options: Partial<ControllerOptions> & { reconciler: ControllerOptions['reconciler'] }): Controller {
  return newController('test', { logger: silentLogger, ...options });
}

function run(controller: Controller): { stop: AbortController; done: Promise<void> } {
  const stop = new AbortController();
  const done = controller.start(stop.signal);
  running.push({ controller, stop, done });
  return { stop, done };
}

afterEach(async () => {
  for (const r of running.splice(0)) {
    r.stop.abort();
    await r.done.catch(() => {});
  }
});

describe('controller options', () => {
  it('rejects a missing reconciler and a concurrency below one', () => {
    expect(() => newController('c', {} as ControllerOptions)).toThrow(ControllerOptionsError);
    expect(() => newController('c', { reconciler: async () => {}, maxConcurrentReconciles: 0 })).toThrow(/maxConcurrentReconciles/);
    expect(() => newController('', { reconciler: async () => {} })).toThrow(/name/);
  });

  it('refuses a second start', async () => {
    const c = make({ reconciler: async () => {} });
    run(c);
    await expect(c.start(new AbortController().signal)).rejects.toBeInstanceOf(ControllerAlreadyStartedError);
  });
});

describe('engagement', () => {
  it('starts sources of clusters engaged before start, at start', async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    expect(src.clusters()).toEqual([]);
    run(c);
    await vi.waitFor(() => expect(src.clusters()).toEqual(['a']));
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(rec.calls).toEqual(['a/default/x']));
  });

  it("starts sources on engage, stops them on disengage and drops that cluster's queued requests", async () => {
    const rec = new Recorder();
    const metrics = new RecordingMetrics();
    const c = make({ reconciler: rec.fn, metrics });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    const a = new AbortController();
    const b = new AbortController();
    await c.engage(a.signal, 'a', new ScriptedCluster('a'));
    await c.engage(b.signal, 'b', new ScriptedCluster('b'));
    expect(src.clusters()).toEqual(['a', 'b']);
    expect(metrics.engaged).toBe(2);

    // One worker: block it on a request of cluster a, then queue more for a and one for b.
    rec.block('first');
    src.emit('a', { name: 'first' });
    await vi.waitFor(() => expect(rec.calls).toEqual(['a/default/first']));
    for (let i = 0; i < 5; i++) src.emit('a', { name: `queued-${i}` });
    src.emit('b', { name: 'other' });

    a.abort();
    expect(src.clusters()).toEqual(['b']);
    expect(c.engagedClusters()).toEqual(['b']);
    expect(metrics.engaged).toBe(1);
    // The in-flight reconcile of the disengaged cluster sees its signal abort.
    expect(rec.contexts.get('a/default/first')?.signal.aborted).toBe(true);
    rec.release('first');
    await vi.waitFor(() => expect(rec.calls).toContain('b/default/other'));
    expect(rec.calls.filter((k) => k.startsWith('a/'))).toEqual(['a/default/first']);
    expect(c.engagedClusters()).toEqual(['b']);
  });

  it('treats the same instance engaged again as a no-op', async () => {
    const c = make({ reconciler: async () => {} });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    const cluster = new ScriptedCluster('a');
    const first = new AbortController();
    await c.engage(first.signal, 'a', cluster);
    await c.engage(new AbortController().signal, 'a', cluster);
    expect(src.log).toEqual(['start a']);
    // The engagement still belongs to the first signal.
    first.abort();
    expect(src.log).toEqual(['start a', 'stop a']);
  });

  it("replaces an engagement with a new instance, and the old engagement's cleanup never removes the replacement", async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    const oldSignal = new AbortController();
    const oldCluster = new ScriptedCluster('a');
    const newCluster = new ScriptedCluster('a');
    await c.engage(oldSignal.signal, 'a', oldCluster);
    await c.engage(new AbortController().signal, 'a', newCluster);
    expect(src.log).toEqual(['start a', 'stop a', 'start a']);
    expect(src.running.get('a')?.cluster).toBe(newCluster);

    rec.block('slow');
    src.emit('a', { name: 'slow' });
    await vi.waitFor(() => expect(rec.calls).toEqual(['a/default/slow']));
    src.emit('a', { name: 'waiting' });
    // The provider now aborts the old instance's signal (late, as providers do).
    oldSignal.abort();
    expect(src.running.get('a')?.cluster).toBe(newCluster);
    expect(c.engagedClusters()).toEqual(['a']);
    rec.release('slow');
    // The replacement's queued work survived.
    await vi.waitFor(() => expect(rec.calls).toContain('a/default/waiting'));
  });

  it('starts a source added after engagement for every engaged cluster', async () => {
    const c = make({ reconciler: async () => {} });
    run(c);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    await c.engage(new AbortController().signal, 'b', new ScriptedCluster('b'));
    const late = new ScriptedSource();
    c.multiClusterWatch(late);
    await vi.waitFor(() => expect(late.clusters()).toEqual(['a', 'b']));
  });

  it('skips clusters a source declines and rolls back an engagement whose source fails to start', async () => {
    const c = make({ reconciler: async () => {} });
    const declines = new ScriptedSource();
    declines.skip.add('a');
    const fails = new ScriptedSource();
    fails.failStart.add('b');
    c.multiClusterWatch(declines);
    c.multiClusterWatch(fails);
    run(c);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    expect(declines.clusters()).toEqual([]);
    expect(fails.clusters()).toEqual(['a']);
    await expect(c.engage(new AbortController().signal, 'b', new ScriptedCluster('b'))).rejects.toBeInstanceOf(ControllerEngageFailedError);
    // b's first source had started; the rollback stopped it again.
    expect(declines.log).toEqual(['start b', 'stop b']);
    expect(declines.clusters()).toEqual([]);
    expect(c.engagedClusters()).toEqual(['a']);
  });

  it("engages other clusters while one cluster's source hangs in start (upstream serializes them)", async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const src = new ScriptedSource();
    src.hang.add('stuck');
    c.multiClusterWatch(src);
    run(c);
    const stuckSignal = new AbortController();
    const stuck = c.engage(stuckSignal.signal, 'stuck', new ScriptedCluster('stuck'));
    await c.engage(new AbortController().signal, 'healthy', new ScriptedCluster('healthy'));
    src.emit('healthy', { name: 'x' });
    await vi.waitFor(() => expect(rec.calls).toEqual(['healthy/default/x']));
    expect(src.log).toEqual(['hang stuck', 'start healthy']);
    // Disengaging the stuck cluster ends its pending engage without starting anything.
    stuckSignal.abort();
    await stuck;
    expect(src.clusters()).toEqual(['healthy']);
    expect(c.engagedClusters()).toEqual(['healthy']);
  });

  it("warns when an engaged cluster's source has not synced within the cache sync timeout, and keeps it engaged", async () => {
    const warnings: LogFields[] = [];
    const logger = createLogger({
      sink: (level, _msg, fields) => {
        if (level === 'warn') warnings.push(fields);
      },
      level: 'warn',
    });
    const c = make({ reconciler: async () => {}, cacheSyncTimeoutMs: 30, logger });
    const src = new ScriptedSource();
    src.synced = false;
    c.multiClusterWatch(src);
    run(c);
    await c.engage(new AbortController().signal, 'slow', new ScriptedCluster('slow'));
    await vi.waitFor(() => expect(warnings).toEqual([expect.objectContaining({ cluster: 'slow', timeoutMs: 30 })]));
    expect(c.engagedClusters()).toEqual(['slow']);
  });

  it('ignores an engagement whose signal already aborted', async () => {
    const c = make({ reconciler: async () => {} });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    await c.engage(AbortSignal.abort(), 'a', new ScriptedCluster('a'));
    expect(src.log).toEqual([]);
    expect(c.engagedClusters()).toEqual([]);
  });

  it("stops every cluster's sources when the controller stops", async () => {
    const c = make({ reconciler: async () => {} });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    const { stop, done } = run(c);
    const engageSignal = new AbortController();
    await c.engage(engageSignal.signal, 'a', new ScriptedCluster('a'));
    stop.abort();
    await done;
    expect(src.log).toEqual(['start a', 'stop a']);
    expect(c.engagedClusters()).toEqual([]);
  });
});

describe('static sources', () => {
  it('waits for static sources to sync before running workers and fails after the cache sync timeout', async () => {
    const c = make({ reconciler: async () => {}, cacheSyncTimeoutMs: 50 });
    const never = new ScriptedStaticSource();
    never.synced = false;
    c.watch(never);
    const stop = new AbortController();
    await expect(c.start(stop.signal)).rejects.toBeInstanceOf(WaitForSyncTimeoutError);
    // The failed controller let go of what it started.
    expect(never.signal?.aborted).toBe(true);
  });

  it('reports ready once started with its static sources synced', async () => {
    const c = make({ reconciler: async () => {} });
    const local = new ScriptedStaticSource();
    local.synced = false;
    c.watch(local);
    const notYet = new AbortController();
    const early = c.waitForReady(notYet.signal);
    run(c);
    notYet.abort();
    expect(await early).toBe(false);
    const ready = make({ reconciler: async () => {} });
    ready.watch(new ScriptedStaticSource());
    run(ready);
    expect(await ready.waitForReady(AbortSignal.timeout(5_000))).toBe(true);
  });

  it('delivers requests from a static source (the local cluster)', async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const local = new ScriptedStaticSource();
    c.watch(local);
    run(c);
    await vi.waitFor(() => expect(local.queue).toBeDefined());
    local.emit({ clusterName: '', namespace: 'ns', name: 'x' });
    await vi.waitFor(() => expect(rec.calls).toEqual(['/ns/x']));
  });
});

describe('reconcile results and errors', () => {
  async function started(rec: Recorder, options: Partial<ControllerOptions> = {}) {
    const metrics = new RecordingMetrics();
    const c = make({ reconciler: rec.fn, metrics, ...options });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    return { c, src, metrics };
  }

  it('requeues after requeueAfter', async () => {
    const rec = new Recorder();
    let n = 0;
    rec.behaviour = async () => (++n < 3 ? { requeueAfter: 20 } : {});
    const { src, metrics } = await started(rec);
    const t0 = performance.now();
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(rec.count('a/default/x')).toBe(3));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(38);
    expect(metrics.outcomes.map((o) => o.outcome)).toEqual(['requeue_after', 'requeue_after', 'success']);
  });

  it('requeues with the rate limiter on requeue: true', async () => {
    const rec = new Recorder();
    let n = 0;
    rec.behaviour = async () => (++n < 3 ? { requeue: true } : undefined);
    const { src, metrics } = await started(rec);
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(metrics.outcomes.map((o) => o.outcome)).toEqual(['requeue', 'requeue', 'success']));
  });

  it('keeps its workers through a logger and a metrics sink that throw: the failed request is retried, the next one runs', async () => {
    const rec = new Recorder();
    let failures = 1;
    rec.behaviour = async () => {
      if (failures-- > 0) throw new Error('first attempt fails');
    };
    const throwing: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: () => {
        throw new Error('log sink is down');
      },
      with: () => throwing,
    };
    const metrics = new RecordingMetrics();
    let badScrapes = 1;
    metrics.reconcileDone = function (this: RecordingMetrics, ...args: Parameters<RecordingMetrics['reconcileDone']>) {
      if (badScrapes-- > 0) throw new Error('metrics sink is down');
      RecordingMetrics.prototype.reconcileDone.apply(this, args);
    };
    const c = make({ reconciler: rec.fn, metrics, logger: throwing, maxConcurrentReconciles: 1 });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(rec.count('a/default/x')).toBe(2));
    src.emit('a', { name: 'y' });
    await vi.waitFor(() => expect(metrics.outcomes).toEqual([{ cluster: 'a', outcome: 'success' }]));
    expect(rec.calls).toEqual(['a/default/x', 'a/default/x', 'a/default/y']);
  });

  it('does not retry a TerminalError', async () => {
    const rec = new Recorder();
    rec.behaviour = async () => {
      throw new TerminalError('bad spec');
    };
    const { src, metrics } = await started(rec);
    src.emit('a', { name: 'x' });
    src.emit('a', { name: 'after' });
    await vi.waitFor(() => expect(rec.calls).toContain('a/default/after'));
    await vi.waitFor(() => expect(metrics.outcomes).toHaveLength(2));
    expect(rec.count('a/default/x')).toBe(1);
    expect(metrics.outcomes[0]?.outcome).toBe('terminal_error');
  });

  it('drops a request whose cluster is not found, or retries it when told to', async () => {
    const rec = new Recorder();
    rec.behaviour = async (req) => {
      throw new Error('lookup failed', { cause: new ClusterNotFoundError(req.clusterName) });
    };
    const dropping = await started(rec);
    dropping.src.emit('a', { name: 'x', clusterName: 'gone' });
    await vi.waitFor(() => expect(dropping.metrics.outcomes).toEqual([{ cluster: 'gone', outcome: 'cluster_not_found' }]));

    const retrying = new Recorder();
    retrying.behaviour = rec.behaviour;
    const r = await started(retrying, { onClusterNotFound: 'retry' });
    r.src.emit('a', { name: 'x', clusterName: 'gone' });
    await vi.waitFor(() => expect(retrying.count('gone/default/x')).toBeGreaterThanOrEqual(3));
    expect(rec.count('gone/default/x')).toBe(1);
  });

  it('survives a reconciler that throws synchronously or rejects on every call, backing off between retries', async () => {
    const times: number[] = [];
    let sync = true;
    const reconciler = ((_req: Request) => {
      times.push(performance.now());
      sync = !sync;
      if (sync) throw new Error('sync boom');
      return Promise.reject(new Error('async boom'));
    }) as ReconcileFunc;
    const rec = new Recorder();
    rec.behaviour = reconciler;
    const { src, metrics } = await started(rec);
    src.emit('a', { name: 'x' });
    // client-go's per-item backoff: 5, 10, 20, 40, 80, 160 ms …
    await vi.waitFor(() => expect(times.length).toBeGreaterThanOrEqual(7), { timeout: 5000 });
    const gaps = times.slice(1, 7).map((t, i) => t - times[i]!);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(5 * 2 ** i - 2));
    expect(gaps[5]!).toBeGreaterThan(gaps[0]! * 8);
    expect(metrics.outcomes.every((o) => o.outcome === 'error')).toBe(true);
  });

  it('runs at most maxConcurrentReconciles at once, and reaches it', async () => {
    let active = 0;
    let max = 0;
    const rec = new Recorder();
    rec.behaviour = async () => {
      active++;
      max = Math.max(max, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
    };
    const { src, metrics } = await started(rec, { maxConcurrentReconciles: 3 });
    for (let i = 0; i < 30; i++) src.emit('a', { name: `o${i}` });
    await vi.waitFor(() => expect(rec.calls).toHaveLength(30));
    expect(max).toBe(3);
    expect(metrics.maxActive).toBe(3);
  });

  it('gives reconcilers a logger and a signal, and drains in-flight reconciles on stop', async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    const { stop, done } = run(c);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    let finished = false;
    rec.behaviour = async (_req, ctx) => {
      await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      await new Promise((r) => setTimeout(r, 20));
      finished = true;
    };
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    expect(rec.contexts.get('a/default/x')?.clusterName).toBe('a');
    stop.abort();
    await done;
    expect(finished).toBe(true);
  });
});

describe('reconcile context', () => {
  it('logs with controller, cluster, namespace and name, and names the failure', async () => {
    const records: { msg: string; fields: LogFields }[] = [];
    const logger = createLogger({ sink: (_l, msg, fields) => records.push({ msg, fields }), level: 'debug' });
    const c = newController('ctx', {
      logger,
      reconciler: async (_req, ctx) => {
        ctx.log.info('inside');
        throw new TerminalError('cannot fix');
      },
    });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    await c.engage(new AbortController().signal, 'east', new ScriptedCluster('east'));
    src.emit('east', { namespace: 'ns', name: 'obj' });
    await vi.waitFor(() => expect(records.map((r) => r.msg)).toContain('reconcile failed with a terminal error; not retrying'));
    const inside = records.find((r) => r.msg === 'inside')!;
    expect(inside.fields).toMatchObject({ controller: 'ctx', cluster: 'east', namespace: 'ns', name: 'obj' });
    expect(inside.fields['reconcileID']).toEqual(expect.any(String));
    const failure = records.find((r) => r.msg.startsWith('reconcile failed'))!;
    expect(failure.fields).toMatchObject({
      controller: 'ctx',
      cluster: 'east',
      name: 'obj',
      error: 'cannot fix',
      errorName: 'TerminalError',
    });
  });
});

describe('reconcile context, made on first use', () => {
  it('gives a reconcile that first reads its signal after its cluster went an aborted signal', async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    const engagement = new AbortController();
    await c.engage(engagement.signal, 'a', new ScriptedCluster('a'));
    let late: AbortSignal | undefined;
    rec.block('x');
    rec.behaviour = async (_req, ctx) => {
      late = ctx.signal;
    };
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    engagement.abort();
    rec.release('x');
    await vi.waitFor(() => expect(late).toBeDefined());
    expect(late!.aborted).toBe(true);
  });

  it('keeps signal and log when the context is spread to replace one field', async () => {
    let spread: ReconcileContext | undefined;
    const c = newController('spread', {
      logger: silentLogger,
      reconciler: async (_req, ctx) => {
        spread = { ...ctx, log: ctx.log.with({ step: 'one' }) };
      },
    });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    const engagement = new AbortController();
    await c.engage(engagement.signal, 'a', new ScriptedCluster('a'));
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(spread).toBeDefined());
    expect(spread!.clusterName).toBe('a');
    expect(spread!.signal).toBeInstanceOf(AbortSignal);
    expect(typeof spread!.log.info).toBe('function');
  });

  it('keeps one reconcile ID within a reconcile and gives the next reconcile another', async () => {
    const ids: unknown[] = [];
    const c = newController('ids', {
      logger: createLogger({
        sink: (_l, msg, fields) => {
          if (msg === 'inside') ids.push(fields['reconcileID']);
        },
        level: 'debug',
      }),
      reconciler: async (_req, ctx) => {
        ctx.log.info('inside');
        ctx.log.info('inside');
      },
    });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(ids).toHaveLength(2));
    src.emit('a', { name: 'x' });
    await vi.waitFor(() => expect(ids).toHaveLength(4));
    expect(ids[0]).toEqual(expect.any(String));
    expect(ids[1]).toBe(ids[0]);
    expect(ids[3]).toBe(ids[2]);
    expect(ids[2]).not.toBe(ids[0]);
  });
});

describe('fairness', () => {
  it("reconciles a quiet cluster's request within two reconciles although another cluster queued 10,000", async () => {
    const rec = new Recorder();
    const c = make({ reconciler: rec.fn });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    run(c);
    await c.engage(new AbortController().signal, 'noisy', new ScriptedCluster('noisy'));
    await c.engage(new AbortController().signal, 'quiet', new ScriptedCluster('quiet'));
    rec.block('gate');
    src.emit('noisy', { name: 'gate' });
    await vi.waitFor(() => expect(rec.calls).toHaveLength(1));
    for (let i = 0; i < 10_000; i++) src.emit('noisy', { name: `n${i}` });
    src.emit('quiet', { name: 'q' });
    rec.release('gate');
    await vi.waitFor(() => expect(rec.calls).toContain('quiet/default/q'));
    // Bound: with round-robin across clusters the quiet request is at most the second reconcile after the gate.
    expect(rec.calls.indexOf('quiet/default/q')).toBeLessThanOrEqual(2);
  });
});
