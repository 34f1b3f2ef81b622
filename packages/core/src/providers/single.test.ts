import { describe, expect, it } from 'vitest';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import { RecordingAware, ScriptedCluster } from './clusters/scripted-cluster.test-util.js';
import { ProviderAlreadyStartedError } from './errors.js';
import { NopProvider } from './nop.js';
import { SingleClusterProvider } from './single.js';

describe('SingleClusterProvider', () => {
  it('starts the cluster, engages it under its name, and stops it on abort', async () => {
    const c = new ScriptedCluster('x');
    const p = new SingleClusterProvider('east', c);
    const aware = new RecordingAware();
    const ac = new AbortController();
    const running = p.start(ac.signal, aware.context());
    await expect.poll(() => aware.live()).toEqual(['east']);
    expect(c.running).toBe(true);
    expect(await p.get('east')).toBe(c);
    await expect(p.get('west')).rejects.toBeInstanceOf(ClusterNotFoundError);
    await expect(p.start(ac.signal, aware.context())).rejects.toBeInstanceOf(ProviderAlreadyStartedError);
    ac.abort();
    await running;
    expect(c.running).toBe(false);
    expect(aware.live()).toEqual([]);
  });

  it('leaves the cluster alone with startCluster: false', async () => {
    const c = new ScriptedCluster('x');
    const p = new SingleClusterProvider('', c, { startCluster: false });
    const aware = new RecordingAware();
    const ac = new AbortController();
    const running = p.start(ac.signal, aware.context());
    await expect.poll(() => aware.live()).toEqual(['']);
    expect(c.starts).toBe(0);
    ac.abort();
    await running;
  });

  it('indexes the one cluster', async () => {
    const c = new ScriptedCluster('x');
    await new SingleClusterProvider('a', c).indexField({ apiVersion: 'v1', kind: 'Pod' }, 'spec.nodeName', () => []);
    expect(c.indexed).toEqual(['Pod:spec.nodeName']);
  });
});

describe('NopProvider', () => {
  it('knows no cluster and runs until aborted', async () => {
    const p = new NopProvider();
    await expect(p.get('a')).rejects.toBeInstanceOf(ClusterNotFoundError);
    await p.indexField({ apiVersion: 'v1', kind: 'Pod' }, 'f', () => []);
    const ac = new AbortController();
    let done = false;
    const running = p.start(ac.signal, new RecordingAware().context()).then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    ac.abort();
    await running;
    expect(done).toBe(true);
  });
});
