import { ClusterNotFoundError, createLogger } from '@multicluster-runtime/core';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import { IndexFieldError, ProviderAlreadyStartedError } from '@multicluster-runtime/core/providers';
import type { ObjectKind } from '@multicluster-runtime/core';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { MultiProviderStoppedError, ProviderNameError, ProviderRemovedError } from './errors.js';
import { FakeCluster, FakeProvider, RecordingAware } from './fake-fleet.test-util.js';
import { MultiProvider } from './multi-provider.js';

const configMap: ObjectKind = { apiVersion: 'v1', kind: 'ConfigMap' };
const secret: ObjectKind = { apiVersion: 'v1', kind: 'Secret' };
const byName = () => [] as string[];

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** Starts `multi` and registers its stop for afterEach. */
function run(
  multi: MultiProvider,
  aware = new RecordingAware(),
): { aware: RecordingAware; stop: () => Promise<void>; done: Promise<void> } {
  const ac = new AbortController();
  const done = multi.start(ac.signal, aware.context());
  const stop = async () => {
    ac.abort();
    await done;
  };
  stops.push(stop);
  return { aware, stop, done };
}

describe('MultiProvider', () => {
  test('engages each provider\'s clusters as "<provider>#<cluster>" and get delegates to the right provider', async () => {
    const multi = new MultiProvider();
    const east = new FakeProvider();
    const west = new FakeProvider();
    await multi.add('east', east);
    await multi.add('west', west);
    const { aware } = run(multi);

    const a = await east.addCluster('a');
    const b = await west.addCluster('a');
    expect(aware.live()).toEqual(['east#a', 'west#a']);
    expect(aware.engagements.find((e) => e.name === 'east#a')?.cluster).toBe(a);
    expect(await multi.get('east#a')).toBe(a);
    expect(await multi.get('west#a')).toBe(b);
    expect(multi.providerNames()).toEqual(['east', 'west']);
    expect(multi.getProvider('east')).toBe(east);
  });

  test.each([
    ['an unknown provider', 'north#a'],
    ['an unknown cluster of a known provider', 'east#zzz'],
    ['a name without separator', 'a'],
    ['a name that starts with the separator', '#a'],
    ['the empty name', ''],
  ])('get of %s throws ClusterNotFoundError naming the full cluster', async (_what, name) => {
    const multi = new MultiProvider();
    const east = new FakeProvider();
    await multi.add('east', east);
    run(multi);
    await east.addCluster('a');
    const err = await multi.get(name).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterNotFoundError);
    expect((err as ClusterNotFoundError).clusterName).toBe(name);
  });

  test('the separator is configurable and cluster names may contain it', async () => {
    const multi = new MultiProvider({ separator: '/' });
    const capi = new FakeProvider();
    await multi.add('capi', capi);
    const { aware } = run(multi);
    const c = await capi.addCluster('ns/cluster-1');
    expect(aware.live()).toEqual(['capi/ns/cluster-1']);
    expect(await multi.get('capi/ns/cluster-1')).toBe(c);
  });

  test('rejects empty, duplicate and separator-containing provider names', async () => {
    const multi = new MultiProvider();
    await multi.add('one', new FakeProvider());
    await expect(multi.add('one', new FakeProvider())).rejects.toBeInstanceOf(ProviderNameError);
    await expect(multi.add('', new FakeProvider())).rejects.toThrow(/is empty/);
    await expect(multi.add('a#b', new FakeProvider())).rejects.toThrow(/contains the separator "#"/);
    expect(() => new MultiProvider({ separator: '' })).toThrow(/separator must not be empty/);
  });

  test('a provider added while running is started and its clusters engaged', async () => {
    const multi = new MultiProvider();
    const { aware } = run(multi);
    const late = new FakeProvider();
    await multi.add('late', late);
    expect(late.starts).toBe(1);
    const c = await late.addCluster('x');
    expect(aware.live()).toEqual(['late#x']);
    expect(await multi.get('late#x')).toBe(c);
  });

  test('removing a provider stops it and disengages its clusters; the others stay', async () => {
    const multi = new MultiProvider();
    const keep = new FakeProvider();
    const drop = new FakeProvider();
    await multi.add('keep', keep);
    await multi.add('drop', drop);
    const { aware } = run(multi);
    await keep.addCluster('a');
    const dropped = await drop.addCluster('a');

    await multi.remove('drop');
    expect(drop.running).toBe(false);
    expect(dropped.running).toBe(false);
    expect(aware.live()).toEqual(['keep#a']);
    await expect(multi.get('drop#a')).rejects.toBeInstanceOf(ClusterNotFoundError);
    expect(multi.providerNames()).toEqual(['keep']);
    await multi.remove('never-added'); // a no-op
  });

  test('removing a provider disengages its clusters even if the provider does not', async () => {
    const multi = new MultiProvider();
    const careless = new FakeProvider({ disengageOnStop: false });
    await multi.add('careless', careless);
    const { aware } = run(multi);
    await careless.addCluster('a');
    expect(aware.live()).toEqual(['careless#a']);
    await multi.remove('careless');
    expect(aware.live()).toEqual([]);
    await careless.set.removeAll();
  });

  test('a removed provider cannot engage more clusters', async () => {
    const multi = new MultiProvider();
    const careless = new FakeProvider({ disengageOnStop: false });
    await multi.add('careless', careless);
    const { aware } = run(multi);
    await careless.addCluster('a');
    await multi.remove('careless');
    const err = await careless.addCluster('b').catch((e: unknown) => e);
    expect((err as Error).cause).toBeInstanceOf(ProviderRemovedError);
    expect(aware.engagements.map((e) => e.name)).toEqual(['careless#a']);
    await careless.set.removeAll();
  });

  test('a provider whose start fails is removed, with its clusters, and the rest keep running', async () => {
    const multi = new MultiProvider();
    const good = new FakeProvider();
    const bad = new FakeProvider();
    bad.failStartWith = new Error('cannot list clusters');
    await multi.add('good', good);
    await multi.add('bad', bad);
    const { aware } = run(multi);
    await vi.waitFor(() => expect(multi.providerNames()).toEqual(['good']));
    await good.addCluster('a');
    expect(aware.live()).toEqual(['good#a']);
  });

  test('stopping disengages every cluster and stops every provider; adding afterwards fails', async () => {
    const multi = new MultiProvider();
    const p = new FakeProvider();
    await multi.add('p', p);
    const { aware, stop } = run(multi);
    const c = await p.addCluster('a');
    await stop();
    expect(p.running).toBe(false);
    expect(c.running).toBe(false);
    expect(aware.live()).toEqual([]);
    await expect(multi.add('q', new FakeProvider())).rejects.toBeInstanceOf(MultiProviderStoppedError);
  });

  test('start twice is refused', async () => {
    const multi = new MultiProvider();
    run(multi);
    await expect(multi.start(new AbortController().signal, new RecordingAware().context())).rejects.toBeInstanceOf(
      ProviderAlreadyStartedError,
    );
  });

  test('indexField reaches every provider exactly once, including providers added later, and every cluster once', async () => {
    const multi = new MultiProvider();
    const early = new FakeProvider();
    await multi.add('early', early);
    await multi.indexField(configMap, 'before-start', byName);
    run(multi);
    const e1 = await early.addCluster('e1');
    const late = new FakeProvider();
    await multi.add('late', late);
    const l1 = await late.addCluster('l1');
    await multi.indexField(secret, 'after-start', byName);
    const l2 = await late.addCluster('l2');

    expect(early.indexCalls).toEqual(['ConfigMap:before-start', 'Secret:after-start']);
    expect(late.indexCalls).toEqual(['ConfigMap:before-start', 'Secret:after-start']);
    for (const c of [e1, l1, l2]) expect(c.indexed).toEqual(['ConfigMap:before-start', 'Secret:after-start']);
  });

  test('indexField racing add still applies each index to each provider once', async () => {
    const multi = new MultiProvider();
    run(multi);
    const providers = Array.from({ length: 5 }, () => new FakeProvider());
    await Promise.all([
      ...providers.map((p, i) => multi.add(`p${i}`, p)),
      multi.indexField(configMap, 'f1', byName),
      multi.indexField(configMap, 'f2', byName),
    ]);
    for (const p of providers) expect([...p.indexCalls].sort()).toEqual(['ConfigMap:f1', 'ConfigMap:f2']);
  });

  test('indexField failures name the provider and do not stop the others', async () => {
    const multi = new MultiProvider();
    const ok = new FakeProvider();
    const broken = new FakeProvider();
    broken.indexField = () => Promise.reject(new Error('indexer conflict'));
    await multi.add('ok', ok);
    await multi.add('broken', broken);
    const err = await multi.indexField(configMap, 'f', byName).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexFieldError);
    expect((err as Error).message).toContain('"broken"');
    expect(ok.indexCalls).toEqual(['ConfigMap:f']);
  });

  test('a provider is started only after it has received the recorded indexes', async () => {
    const multi = new MultiProvider();
    await multi.indexField(configMap, 'f', byName);
    const slow = new FakeProvider();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    slow.indexField = async () => {
      order.push('index');
      await gate;
      order.push('indexed');
    };
    const originalStart = slow.start.bind(slow);
    slow.start = (signal, aware) => {
      order.push('start');
      return originalStart(signal, aware);
    };
    const adding = multi.add('slow', slow);
    run(multi); // starts while the index is still being applied
    expect(order).toEqual(['index']);
    release();
    await adding;
    expect(order).toEqual(['index', 'indexed', 'start']);
  });

  test('a provider that cannot take the recorded indexes is not added', async () => {
    const multi = new MultiProvider();
    await multi.indexField(configMap, 'f', byName);
    const broken = new FakeProvider();
    broken.indexField = () => Promise.reject(new Error('indexer conflict'));
    const err = await multi.add('broken', broken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexFieldError);
    expect((err as Error).message).toContain('provider "broken" was not added');
    expect(multi.providerNames()).toEqual([]);
  });

  test("members get the starter's context: its local cluster and metrics, a logger naming them, a prefixing Aware", async () => {
    const local = new FakeCluster('local');
    const records: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'debug', sink: (level, msg, fields) => records.push({ level, msg, ...fields }) });
    const metrics = { ...noopMetrics };
    const probe = new FakeProvider();
    const multi = new MultiProvider();
    await multi.add('p', probe);
    const ac = new AbortController();
    const aware = new RecordingAware();
    const done = multi.start(ac.signal, aware.context({ localCluster: local, logger, metrics }));
    stops.push(async () => {
      ac.abort();
      await done;
    });
    await vi.waitFor(() => expect(probe.context).toBeDefined());
    const context = probe.context!;
    expect(context.localCluster).toBe(local);
    expect(context.metrics).toBe(metrics);
    expect(context.aware).not.toBe(aware);
    await probe.addCluster('c');
    expect(aware.live()).toEqual(['p#c']);
    context.logger.warn('member speaking');
    expect(records).toContainEqual(expect.objectContaining({ msg: 'member speaking', member: 'p' }));
  });

  test('a provider without a discovery loop serves get only', async () => {
    const multi = new MultiProvider();
    const cluster = new FakeCluster('static');
    await multi.add('static', {
      get: (name) => (name === 'only' ? Promise.resolve(cluster) : Promise.reject(new ClusterNotFoundError(name))),
      indexField: async () => {},
    });
    run(multi);
    expect(await multi.get('static#only')).toBe(cluster);
    await expect(multi.get('static#other')).rejects.toBeInstanceOf(ClusterNotFoundError);
  });
});
