/**
 * State-machine tests for the watcher, driven by a scripted list/watch source (the HTTP path is covered by the
 * informer tests against the in-memory API server).
 */
import { describe, expect, it } from 'vitest';
import type { ObjectList } from '../client/types.js';
import type { KubeObject } from '../object/types.js';
import type { ListWatcher } from './list-watcher.js';
import { cm, fail, httpError, page, ScriptedSource, stream, type ListStep, type WatchStep } from './testing/scripted-source.js';
import { Watcher, type WatcherEvent } from './watcher.js';
import { InitialListFailed, WatchErrorEvent, WatchFailed, WatchStartFailed } from './watcher-errors.js';

const obj = (name: string, rv: string): KubeObject => cm(name, rv);
const gone = httpError(410, '410 Gone');
const unavailable = httpError(503, '503 unavailable');

/** Collects events until `until` says stop, then aborts the watcher and checks it ends. */
async function collect(
  source: ListWatcher,
  until: (events: WatcherEvent[]) => boolean,
  options: ConstructorParameters<typeof Watcher>[2] = {},
): Promise<WatcherEvent[]> {
  const ac = new AbortController();
  const watcher = new Watcher(source, ac.signal, { backoff: { initialMs: 1, maxMs: 4 }, minWatchMs: 0, ...options });
  const events: WatcherEvent[] = [];
  for await (const e of watcher) {
    events.push(e);
    if (until(events)) ac.abort();
  }
  return events;
}

const brief = (events: WatcherEvent[]) =>
  events.map((e) => {
    switch (e.type) {
      case 'initApply':
      case 'apply':
      case 'delete':
        return `${e.type}:${e.object.metadata.name}`;
      case 'initDone':
      case 'watching':
      case 'bookmark':
        return `${e.type}@${e.resourceVersion}`;
      case 'error':
        return `error:${e.error.name}`;
      case 'init':
        return e.type;
    }
  });

describe('Watcher', () => {
  it('lists page by page, then watches from the list resourceVersion with a jittered timeout', async () => {
    const source = new ScriptedSource(
      [page([obj('a', '5'), obj('b', '6')], { continue: 'tok1' }), page([obj('c', '7')], { resourceVersion: '10' })],
      [stream([{ type: 'ADDED', object: obj('d', '11') }], 'open')],
    );
    const events = await collect(source, (ev) => ev.at(-1)?.type === 'apply', { pageSize: 2, timeoutSeconds: 100 });
    expect(brief(events)).toEqual(['init', 'initApply:a', 'initApply:b', 'initApply:c', 'initDone@10', 'watching@10', 'apply:d']);
    expect(source.listCalls).toEqual([{ limit: 2 }, { limit: 2, continue: 'tok1' }]);
    expect(source.watchCalls).toHaveLength(1);
    expect(source.watchCalls[0]?.resourceVersion).toBe('10');
    expect(source.watchCalls[0]?.timeoutSeconds).toBeGreaterThanOrEqual(90);
    expect(source.watchCalls[0]?.timeoutSeconds).toBeLessThanOrEqual(100);
  });

  it('resumes from the last event and bookmark resourceVersion, without relisting', async () => {
    const source = new ScriptedSource(
      [page([], { resourceVersion: '10' })],
      [
        stream([
          { type: 'MODIFIED', object: obj('a', '12') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } },
        ]),
        stream([{ type: 'DELETED', object: obj('a', '21') }]),
        stream([], 'open'),
      ],
    );
    const watcher = new Watcher(source, AbortSignal.timeout(10_000));
    const events: WatcherEvent[] = [];
    for await (const e of watcher) {
      events.push(e);
      if (source.watchCalls.length === 3 && e.type === 'watching') break;
    }
    expect(brief(events)).toEqual([
      'init',
      'initDone@10',
      'watching@10',
      'apply:a',
      'bookmark@20',
      'watching@20',
      'delete:a',
      'watching@21',
    ]);
    expect(source.watchCalls.map((w) => w.resourceVersion)).toEqual(['10', '20', '21']);
    expect(source.listCalls).toHaveLength(1);
    expect(watcher.state).toEqual({ phase: 'watching', resourceVersion: '21' });
  });

  it('relists from scratch after a 410 on a continue token, an HTTP 410 watch and a 410 ERROR event', async () => {
    const source = new ScriptedSource(
      [
        page([obj('a', '1')], { continue: 'old' }),
        fail(gone),
        page([obj('a', '1')], { resourceVersion: '10' }),
        page([obj('b', '2')], { resourceVersion: '30' }),
        page([obj('c', '3')], { resourceVersion: '40' }),
      ],
      [
        fail(gone),
        stream([{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 30 (35)' } }]),
        stream([], 'open'),
      ],
    );
    const events = await collect(source, (ev) => ev.at(-1)?.type === 'watching' && source.watchCalls.length === 3);
    expect(brief(events)).toEqual([
      'init',
      'initApply:a',
      'error:ResourceGone',
      'init',
      'initApply:a',
      'initDone@10',
      'error:ResourceGone',
      'init',
      'initApply:b',
      'initDone@30',
      'watching@30',
      'error:ResourceGone',
      'init',
      'initApply:c',
      'initDone@40',
      'watching@40',
    ]);
    expect(events.filter((e) => e.type === 'error').every((e) => e.type === 'error' && e.retryInMs === 0)).toBe(true);
    expect(source.listCalls.map((l) => l.continue)).toEqual([undefined, 'old', undefined, undefined, undefined]);
  });

  it('backs off and retries other failures forever, keeping its place, and starts the backoff over after a success', async () => {
    const source = new ScriptedSource(
      [page([obj('a', '1')], { continue: 'tok' }), fail(unavailable), fail(unavailable), page([], { resourceVersion: '10' })],
      [
        fail(unavailable),
        stream([{ type: 'ADDED', object: obj('b', '11') }], new Error('socket hang up')),
        stream([{ type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd down' } }]),
        stream([], 'open'),
      ],
    );
    const events = await collect(source, (ev) => ev.at(-1)?.type === 'watching' && source.watchCalls.length === 4, {
      backoff: { initialMs: 1, maxMs: 8, jitter: 0 },
    });
    expect(brief(events)).toEqual([
      'init',
      'initApply:a',
      'error:InitialListFailed',
      'error:InitialListFailed',
      'initDone@10',
      'error:WatchStartFailed',
      'watching@10',
      'apply:b',
      'error:WatchFailed',
      'watching@11',
      'error:WatchErrorEvent',
      'watching@11',
    ]);
    const errors = events.flatMap((e) => (e.type === 'error' ? [e] : []));
    // Two list failures (1, 2); the complete list resets; the watch start fails (1); a watch that delivered an event
    // resets, so its break waits 1 again; the ERROR right after, with nothing between, doubles (2).
    expect(errors.map((e) => e.retryInMs)).toEqual([1, 2, 1, 1, 2]);
    expect(errors[0]?.error).toBeInstanceOf(InitialListFailed);
    expect(errors[0]?.error.retryable).toBe(true);
    expect(errors[0]?.error.message).toMatch(/^v1, Kind=ConfigMap: list failed: 503 ServiceUnavailable: 503 unavailable$/);
    expect(errors[2]?.error).toBeInstanceOf(WatchStartFailed);
    expect(errors[3]?.error).toBeInstanceOf(WatchFailed);
    expect(errors[4]?.error).toBeInstanceOf(WatchErrorEvent);
    expect((errors[4]?.error as WatchErrorEvent).status.message).toBe('etcd down');
    expect(source.listCalls.map((l) => l.continue)).toEqual([undefined, 'tok', 'tok', 'tok']);
    expect(source.watchCalls.map((w) => w.resourceVersion)).toEqual(['10', '10', '11', '11']);
  });

  it('relists when the server says the resourceVersion is too large', async () => {
    const tooLarge = {
      kind: 'Status',
      code: 504,
      reason: 'Timeout',
      message: 'Too large resource version: 99, current: 10',
      details: { causes: [{ reason: 'ResourceVersionTooLarge' }] },
    };
    const source = new ScriptedSource(
      [page([], { resourceVersion: '99' }), page([], { resourceVersion: '10' }), page([], { resourceVersion: '10' })],
      [stream([{ type: 'ERROR', object: tooLarge }]), stream([{ type: 'ERROR', object: tooLarge }]), stream([], 'open')],
    );
    const events = await collect(source, (ev) => ev.at(-1)?.type === 'watching' && source.watchCalls.length === 3, {
      backoff: { initialMs: 5, jitter: 0 },
    });
    expect(brief(events)).toEqual([
      'init',
      'initDone@99',
      'watching@99',
      'error:WatchErrorEvent',
      'init',
      'initDone@10',
      'watching@10',
      'error:WatchErrorEvent',
      'init',
      'initDone@10',
      'watching@10',
    ]);
    // The first relist is immediate; a server that says it again with nothing between is backed off from.
    expect(events.flatMap((e) => (e.type === 'error' ? [e.retryInMs] : []))).toEqual([0, 5]);
  });

  it('treats a stream that closes at once without events, or malformed events, as failures', async () => {
    const source = new ScriptedSource(
      [page([], { resourceVersion: '10' })],
      [stream([]), stream([{ type: 'ADDED', object: { metadata: {} } }]), stream([{ type: 'WHAT', object: {} }]), stream([], 'open')],
    );
    const events = await collect(source, (ev) => ev.at(-1)?.type === 'watching' && source.watchCalls.length === 4, { minWatchMs: 60_000 });
    const errors = events.flatMap((e) => (e.type === 'error' ? [e.error.message] : []));
    expect(errors).toEqual([
      expect.stringMatching(/closed the stream at once/),
      expect.stringMatching(/ADDED event without an object/),
      expect.stringMatching(/unknown event type "WHAT"/),
    ]);
  });

  it('retries a list that has no resourceVersion or malformed items', async () => {
    const source = new ScriptedSource(
      [page([], {}), async () => ({ metadata: {} }) as ObjectList, page([], { resourceVersion: '1' })],
      [stream([], 'open')],
    );
    const events = await collect(source, (ev) => ev.at(-1)?.type === 'watching');
    expect(brief(events)).toEqual(['init', 'error:InitialListFailed', 'init', 'error:InitialListFailed', 'initDone@1', 'watching@1']);
  });

  it('gives up a stream that outlives its timeout (a silent stall)', async () => {
    const source = new ScriptedSource([page([], { resourceVersion: '1' })], [stream([], 'open'), stream([], 'open')]);
    const events = await collect(source, (ev) => ev.filter((e) => e.type === 'watching').length === 2, {
      timeoutSeconds: 1,
      timeoutJitter: 0,
      stallGraceMs: 10,
    });
    const failure = events.find((e) => e.type === 'error');
    expect(failure?.type === 'error' && failure.error.message).toMatch(/no end of stream 10 ms after its timeout/);
  });

  it('stops at once when aborted during a backoff, a list or a watch', async () => {
    for (const [lists, watches] of [
      [[fail(unavailable)], []],
      [[], []],
      [[page([], { resourceVersion: '1' })], [stream([], 'open')]],
    ] as Array<[ListStep[], WatchStep[]]>) {
      const ac = new AbortController();
      const source = new ScriptedSource(lists, watches);
      const watcher = new Watcher(source, ac.signal, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
      const done = (async () => {
        for await (const e of watcher) if (e.type === 'error' || e.type === 'watching' || e.type === 'init') setImmediate(() => ac.abort());
      })();
      await expect(done).resolves.toBeUndefined();
    }
  });

  it('stops in-flight requests when the consumer breaks out of the loop', async () => {
    let aborted = false;
    const source = new ScriptedSource(
      [page([], { resourceVersion: '1' })],
      [
        async (req) => {
          req.signal.addEventListener('abort', () => (aborted = true));
          return stream([{ type: 'ADDED', object: obj('a', '2') }], 'open')(req);
        },
      ],
    );
    for await (const e of new Watcher(source, new AbortController().signal)) if (e.type === 'apply') break;
    expect(aborted).toBe(true);
  });

  it('can be iterated only once', () => {
    const watcher = new Watcher(new ScriptedSource([], []), new AbortController().signal);
    watcher[Symbol.asyncIterator]();
    expect(() => watcher[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});

describe('Watcher.forEach', () => {
  const script = () =>
    new ScriptedSource(
      [page([obj('a', '5')], { resourceVersion: '10' })],
      [
        stream([
          { type: 'MODIFIED', object: obj('a', '12') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } },
        ]),
        stream([{ type: 'DELETED', object: obj('a', '21') }], 'open'),
      ],
    );

  it('pushes the same events, in the same order, as iteration', async () => {
    const iterated = await collect(script(), (ev) => ev.at(-1)?.type === 'delete');
    const ac = new AbortController();
    const pushed: WatcherEvent[] = [];
    await new Watcher(script(), ac.signal, { minWatchMs: 0 }).forEach((e) => {
      pushed.push(e);
      if (e.type === 'delete') ac.abort();
    });
    expect(brief(pushed)).toEqual(brief(iterated));
    expect(brief(pushed)).toEqual([
      'init',
      'initApply:a',
      'initDone@10',
      'watching@10',
      'apply:a',
      'bookmark@20',
      'watching@20',
      'delete:a',
    ]);
  });

  it('waits for a promise the consumer returns before the next event', async () => {
    const ac = new AbortController();
    const watcher = new Watcher(script(), ac.signal, { minWatchMs: 0 });
    const pushed: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const done = watcher.forEach((e) => {
      pushed.push(brief([e])[0]!);
      if (e.type === 'delete') ac.abort();
      return e.type === 'apply' ? held : undefined;
    });
    await expect.poll(() => pushed.at(-1)).toBe('apply:a');
    // Held: the bookmark behind it is not taken while the promise is pending.
    await new Promise((r) => setImmediate(r));
    expect(pushed.at(-1)).toBe('apply:a');
    expect(watcher.state).toEqual({ phase: 'watching', resourceVersion: '12' });
    release();
    await done;
    expect(pushed.slice(-3)).toEqual(['bookmark@20', 'watching@20', 'delete:a']);
  });

  it('runs once: a watcher being iterated refuses forEach, and the other way round', async () => {
    const iterated = new Watcher(script(), AbortSignal.abort());
    for await (const _ of iterated) break;
    expect(() => iterated.forEach(() => {})).toThrow(/can be iterated only once/);
    const pushed = new Watcher(script(), AbortSignal.abort());
    await pushed.forEach(() => {});
    expect(() => pushed[Symbol.asyncIterator]()).toThrow(/can be iterated only once/);
  });
});

describe('Watcher iteration when the loop itself throws', () => {
  it('rejects the waiting next() with the error, as a generator would, instead of ending quietly', async () => {
    const broken: ListWatcher = {
      get resource(): string {
        throw new Error('resource name unavailable');
      },
      list: () => Promise.reject(new Error('not reached')),
      watch: () => Promise.reject(new Error('not reached')),
    };
    const it = new Watcher(broken, new AbortController().signal)[Symbol.asyncIterator]();
    await expect(it.next()).resolves.toMatchObject({ value: { type: 'init' }, done: false });
    await expect(it.next()).rejects.toThrow('resource name unavailable');
    await expect(it.next()).resolves.toEqual({ value: undefined, done: true });
  });
});
