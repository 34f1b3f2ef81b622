/** WATCH: framing, initial state, strict replay, selector transitions, timeouts, 410 and option validation. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { cmPath, configMap, expectStatus, rvOf } from './helpers.js';

export function watchCases(ctx: SuiteContext): void {
  test('watch: headers arrive before any event, as chunked JSON', async () => {
    const ns = await ctx.namespace();
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion });
    try {
      expect(w.status).toBe(200);
      expect(w.headers['content-type']).toMatch(/^application\/json/);
    } finally {
      w.close();
    }
  });

  test('watch: without resourceVersion it starts with ADDED for existing objects, then live events in order', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('pre'));
    const w = await ctx.client.watch(cmPath(ns));
    try {
      const first = await w.next();
      expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'pre' } } });
      const created = (await ctx.client.post(cmPath(ns), configMap('live', { v: '1' }))).body;
      const updated = (await ctx.client.put(cmPath(ns, 'live'), { ...created, data: { v: '2' } })).body;
      await ctx.client.delete(cmPath(ns, 'live'));
      const events = await w.until((e) => e.type === 'DELETED');
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events[1]!.object.data).toEqual({ v: '2' });
      expect(events[1]!.object.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
      const rvs = events.map((e) => rvOf(e.object));
      expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
      expect(rvs[2]!).toBeGreaterThan(rvs[1]!);
    } finally {
      w.close();
    }
  });

  test('watch: from resourceVersion N replays exactly the events after N', async () => {
    const ns = await ctx.namespace();
    const a = (await ctx.client.post(cmPath(ns), configMap('a'))).body;
    await ctx.client.post(cmPath(ns), configMap('b'));
    await ctx.client.post(cmPath(ns), configMap('c'));
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: a.metadata.resourceVersion });
    try {
      const events = await w.until((e) => e.object.metadata.name === 'c');
      expect(events.map((e) => `${e.type}:${e.object.metadata.name}`)).toEqual(['ADDED:b', 'ADDED:c']);
    } finally {
      w.close();
    }
  });

  test('watch: Go-style booleans (watch=1, watch=True) start a watch', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('x'));
    for (const value of ['1', 'True']) {
      const w = await ctx.client.watch(cmPath(ns), { watch: value });
      try {
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'x' } } });
      } finally {
        w.close();
      }
    }
  });

  test('watch: an object leaving the label selector is DELETED, entering is ADDED', async () => {
    const ns = await ctx.namespace();
    const start = (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion;
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: start, labelSelector: 'app=web' });
    try {
      const created = (await ctx.client.post(cmPath(ns), configMap('m', {}, { app: 'other' }))).body;
      const entered = (await ctx.client.put(cmPath(ns, 'm'), { ...created, metadata: { ...created.metadata, labels: { app: 'web' } } }))
        .body;
      await ctx.client.put(cmPath(ns, 'm'), { ...entered, metadata: { ...entered.metadata, labels: { app: 'gone' } } });
      const events = await w.until((e) => e.type === 'DELETED');
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
      expect(events[1]!.object.metadata.labels).toEqual({ app: 'web' });
    } finally {
      w.close();
    }
  });

  test('watch: on an item path (fieldSelector metadata.name) only that object is seen', async () => {
    const ns = await ctx.namespace();
    const start = (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion;
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: start, fieldSelector: 'metadata.name=target' });
    try {
      await ctx.client.post(cmPath(ns), configMap('noise'));
      await ctx.client.post(cmPath(ns), configMap('target'));
      const e = await w.next();
      expect(e).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'target' } } });
    } finally {
      w.close();
    }
  });

  test('watch: timeoutSeconds ends the stream cleanly', async () => {
    const ns = await ctx.namespace();
    const start = (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion;
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: start, timeoutSeconds: 1 });
    const events = await w.waitForEnd(10_000);
    expect(events.filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
    expect(w.broken).toBe(false);
  });

  test('watch: re-watching from the last seen resourceVersion across timeouts loses and repeats nothing (50 writes)', async () => {
    const ns = await ctx.namespace();
    let rv = (await ctx.client.get(cmPath(ns))).body.metadata.resourceVersion as string;
    const writes = (async () => {
      for (let i = 0; i < 50; i++) {
        expect((await ctx.client.post(cmPath(ns), configMap(`w-${String(i).padStart(2, '0')}`))).status).toBe(201);
        if (i % 10 === 9) await new Promise((r) => setTimeout(r, 300));
      }
    })();
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    while (seen.length < 50 && Date.now() < deadline) {
      const w = await ctx.client.watch(cmPath(ns), { resourceVersion: rv, timeoutSeconds: 1, allowWatchBookmarks: 'true' });
      for (const e of await w.waitForEnd(10_000)) {
        rv = e.object.metadata.resourceVersion;
        if (e.type === 'ADDED') seen.push(e.object.metadata.name);
      }
    }
    await writes;
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => `w-${String(i).padStart(2, '0')}`));
  });

  test('watch: from a compacted resourceVersion gives a 410 ERROR event, then the stream closes', async (t) => {
    if (!ctx.backend.compact) return t.skip('backend cannot compact');
    const ns = await ctx.namespace();
    const a = (await ctx.client.post(cmPath(ns), configMap('a'))).body;
    await ctx.client.post(cmPath(ns), configMap('b'));
    ctx.backend.compact();
    const w = await ctx.client.watch(cmPath(ns), { resourceVersion: a.metadata.resourceVersion });
    expect(w.status).toBe(200);
    const events = await w.waitForEnd(10_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: {
        kind: 'Status',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: expect.stringMatching(/^too old resource version/),
      },
    });
  });

  test('watch: sendInitialEvents without resourceVersionMatch=NotOlderThan is 422', async () => {
    const ns = await ctx.namespace();
    const res = await ctx.client.get(cmPath(ns), { watch: 'true', sendInitialEvents: 'true' });
    expectStatus(res, 422, 'Invalid');
  });

  test('watch: sendInitialEvents streams the state then an initial-events-end BOOKMARK (or is refused with 422)', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('s1'));
    await ctx.client.post(cmPath(ns), configMap('s2'));
    const w = await ctx.client.watch(cmPath(ns), {
      sendInitialEvents: 'true',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: 'true',
    });
    try {
      if (w.status === 422) return;
      expect(w.status).toBe(200);
      const events = await w.until((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true');
      expect(events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name)).toEqual(['s1', 's2']);
    } finally {
      w.close();
    }
  });
}
