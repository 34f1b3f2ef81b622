import { describe, expect, it } from 'vitest';
import { ClusterNotFoundError } from '../../multicluster/errors.js';
import {
  CacheSyncTimeoutError,
  ClusterAddAbortedError,
  ClusterAlreadyExistsError,
  ClusterEngageFailedError,
  ClusterIndexFailedError,
  ClusterStartFailedError,
  IndexFieldError,
} from '../errors.js';
import { ClusterSet } from './cluster-set.js';
import { RecordingAware, ScriptedCluster } from './scripted-cluster.test-util.js';

const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
const byName = () => [] as string[];

describe('ClusterSet', () => {
  it('starts, syncs, indexes and engages a cluster, and serves it by name', async () => {
    const set = new ClusterSet();
    const aware = new RecordingAware();
    await set.indexField(cm, 'data.owner', byName);
    const a = new ScriptedCluster('a');
    await set.add('a', a, aware);
    expect(a.running).toBe(true);
    expect(a.indexed).toEqual(['ConfigMap:data.owner']);
    expect(aware.live()).toEqual(['a']);
    expect(await set.get('a')).toBe(a);
    expect(set.names()).toEqual(['a']);
    await set.removeAll();
  });

  it('hides a cluster until its cache has synced', async () => {
    const set = new ClusterSet();
    const a = new ScriptedCluster('a', { synced: false });
    const adding = set.add('a', a, new RecordingAware());
    await expect.poll(() => a.running).toBe(true);
    await expect(set.get('a')).rejects.toBeInstanceOf(ClusterNotFoundError);
    expect(set.names()).toEqual([]);
    expect(set.has('a')).toBe(true);
    a.markSynced();
    await adding;
    expect(await set.get('a')).toBe(a);
    await set.removeAll();
  });

  it('gives up on a cache that never syncs: stops the cluster, frees the name, engages nothing', async () => {
    const set = new ClusterSet({ waitCacheTimeoutMs: 50 });
    const aware = new RecordingAware();
    const a = new ScriptedCluster('a', { synced: false });
    const err = await set.add('a', a, aware).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    expect((err as CacheSyncTimeoutError).retryable).toBe(true);
    expect(a.running).toBe(false);
    expect(set.has('a')).toBe(false);
    expect(aware.log).toEqual([]);
    // The name is free for another attempt.
    await set.add('a', new ScriptedCluster('a'), aware);
    expect(aware.live()).toEqual(['a']);
    await set.removeAll();
  });

  it('reports a cluster whose start fails and keeps nothing registered', async () => {
    const set = new ClusterSet({ waitCacheTimeoutMs: 5_000 });
    const a = new ScriptedCluster('a', { synced: false });
    a.failStartWith = new Error('connection refused');
    const err = await set.add('a', a).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterStartFailedError);
    expect((err as Error).message).toContain('connection refused');
    expect(set.has('a')).toBe(false);
  });

  it('stops the cluster when engaging fails, and when indexing fails', async () => {
    const set = new ClusterSet();
    const aware = new RecordingAware();
    aware.failWith = new Error('no thanks');
    const a = new ScriptedCluster('a');
    await expect(set.add('a', a, aware)).rejects.toBeInstanceOf(ClusterEngageFailedError);
    expect(a.running).toBe(false);
    expect(set.has('a')).toBe(false);

    await set.indexField(cm, 'x', byName);
    const b = new ScriptedCluster('b');
    b.failIndexWith = new Error('indexer conflict');
    await expect(set.add('b', b, new RecordingAware())).rejects.toBeInstanceOf(ClusterIndexFailedError);
    expect(b.running).toBe(false);
    expect(set.has('b')).toBe(false);
  });

  it('refuses a duplicate name', async () => {
    const set = new ClusterSet();
    await set.add('a', new ScriptedCluster('a'));
    await expect(set.add('a', new ScriptedCluster('a'))).rejects.toBeInstanceOf(ClusterAlreadyExistsError);
    await set.removeAll();
  });

  it('applies each index exactly once, also when registered while a cluster is starting', async () => {
    const set = new ClusterSet();
    const a = new ScriptedCluster('a');
    await set.add('a', a);
    const b = new ScriptedCluster('b', { synced: false });
    const addingB = set.add('b', b);
    await set.indexField(cm, 'one', byName);
    b.markSynced();
    await addingB;
    await set.indexField(cm, 'two', byName);
    expect(a.indexed).toEqual(['ConfigMap:one', 'ConfigMap:two']);
    expect(b.indexed).toEqual(['ConfigMap:one', 'ConfigMap:two']);
    await expect(set.indexField(cm, 'one', byName)).rejects.toBeInstanceOf(IndexFieldError);
    await set.removeAll();
  });

  it('reports clusters an index failed on without dropping them', async () => {
    const set = new ClusterSet();
    const a = new ScriptedCluster('a');
    await set.add('a', a);
    a.failIndexWith = new Error('boom');
    const err = await set.indexField(cm, 'f', byName).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexFieldError);
    expect([...(err as IndexFieldError).failures.keys()]).toEqual(['a']);
    expect(await set.get('a')).toBe(a);
    await set.removeAll();
  });

  it('remove disengages and stops the cluster', async () => {
    const set = new ClusterSet();
    const aware = new RecordingAware();
    const a = new ScriptedCluster('a');
    await set.add('a', a, aware);
    await set.remove('a');
    expect(a.running).toBe(false);
    expect(aware.live()).toEqual([]);
    await expect(set.get('a')).rejects.toBeInstanceOf(ClusterNotFoundError);
    await set.remove('a'); // no-op
  });

  it('addOrReplace keeps a cluster with the same connection and replaces a changed one', async () => {
    const set = new ClusterSet();
    const aware = new RecordingAware();
    const a1 = new ScriptedCluster('a', { server: 'https://one:6443' });
    expect(await set.addOrReplace('a', a1, aware)).toBe('added');
    const sameConn = new ScriptedCluster('a', { server: 'https://one:6443' });
    expect(await set.addOrReplace('a', sameConn, aware)).toBe('unchanged');
    expect(sameConn.starts).toBe(0);
    const a2 = new ScriptedCluster('a', { server: 'https://two:6443' });
    expect(await set.addOrReplace('a', a2, aware)).toBe('replaced');
    expect(a1.running).toBe(false);
    expect(a2.running).toBe(true);
    expect(aware.engaged.get('a')?.cluster).toBe(a2);
    expect(await set.get('a')).toBe(a2);
    await set.removeAll();
  });

  it('a replaced cluster that exits late never removes its successor (upstream race)', async () => {
    const set = new ClusterSet();
    const aware = new RecordingAware();
    const old = new ScriptedCluster('a', { server: 'https://old:6443' });
    await set.add('a', old, aware);
    const next = new ScriptedCluster('a', { server: 'https://new:6443', synced: false });
    const replacing = set.addOrReplace('a', next, aware);
    // The old cluster's start returns while the successor is still starting...
    await expect.poll(() => old.running).toBe(false);
    await expect.poll(() => next.running).toBe(true);
    next.markSynced();
    expect(await replacing).toBe('replaced');
    // ...and again after it is engaged: neither exit touches the successor.
    old.crash();
    await Promise.resolve();
    expect(set.has('a')).toBe(true);
    expect(await set.get('a')).toBe(next);
    expect(aware.engaged.get('a')?.cluster).toBe(next);
    expect(aware.engaged.get('a')?.signal.aborted).toBe(false);
    await set.removeAll();
  });

  it('cancels a pending add when the caller aborts or the cluster is removed meanwhile', async () => {
    const set = new ClusterSet();
    const ac = new AbortController();
    const a = new ScriptedCluster('a', { synced: false });
    const adding = set.add('a', a, undefined, { signal: ac.signal });
    ac.abort();
    await expect(adding).rejects.toBeInstanceOf(ClusterAddAbortedError);
    expect(a.running).toBe(false);

    const b = new ScriptedCluster('b', { synced: false });
    const addingB = set.add('b', b);
    await expect.poll(() => b.running).toBe(true);
    await set.remove('b');
    await expect(addingB).rejects.toBeInstanceOf(ClusterAddAbortedError);
    expect(set.has('b')).toBe(false);
  });

  it('drops and disengages a cluster that stops on its own, and tells the provider', async () => {
    const lost: string[] = [];
    const set = new ClusterSet({ onClusterLost: (name, cluster) => lost.push(`${name}:${cluster.name}`) });
    const aware = new RecordingAware();
    const a = new ScriptedCluster('a');
    await set.add('a', a, aware);
    a.crash();
    await expect.poll(() => set.has('a')).toBe(false);
    expect(aware.live()).toEqual([]);
    expect(lost).toEqual(['a:a']);
    // Removal on purpose, replacement and failed adds are not losses.
    const b = new ScriptedCluster('b', { server: 'https://b1:6443' });
    await set.add('b', b);
    await set.addOrReplace('b', new ScriptedCluster('b', { server: 'https://b2:6443' }));
    await set.remove('b');
    await expect(
      set.add('c', new ScriptedCluster('c'), {
        engage: async () => {
          throw new Error('no');
        },
      }),
    ).rejects.toThrow();
    expect(lost).toEqual(['a:a']);
  });

  it('survives an onClusterLost callback that throws', async () => {
    const set = new ClusterSet({
      onClusterLost: () => {
        throw new Error('callback bug');
      },
    });
    const a = new ScriptedCluster('a');
    await set.add('a', a);
    a.crash();
    await expect.poll(() => set.has('a')).toBe(false);
    await set.add('a', new ScriptedCluster('a'));
    expect(set.names()).toEqual(['a']);
    await set.removeAll();
  });
});
