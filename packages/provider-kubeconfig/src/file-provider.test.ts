import { linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterNotFoundError, PrometheusMetrics } from '@multicluster-runtime/core';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ClusterStatus } from '@multicluster-runtime/core/providers';
import { ProviderConfigError } from '@multicluster-runtime/core/providers';
import { KubeconfigFileProvider, type KubeconfigFileProviderOptions } from './file-provider.js';
import { RecordingAware, capturingLogger, credentialsOf, hostileCases, kubeconfigDoc, markerPlugin, toText } from './fleet.test-util.js';

let members: ApiServer[];
let root: string;
let dir: string;
let caseNo = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mcr-files-'));
  members = await Promise.all([startApiServer(), startApiServer()]);
});

afterAll(async () => {
  await Promise.all(members.map((s) => s.close()));
  rmSync(root, { recursive: true, force: true });
});

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((stop) => stop()));
});

/** A fresh folder per test, so watchers of one test never see another's files. */
function freshDir(): string {
  dir = join(root, `case-${++caseNo}`);
  mkdirSync(dir);
  return dir;
}

function start(paths: string[], options: Partial<KubeconfigFileProviderOptions> = {}) {
  const { logger, records } = capturingLogger();
  const history: Array<{ name: string; status: ClusterStatus | undefined }> = [];
  const provider = new KubeconfigFileProvider({
    paths,
    logger,
    debounceMs: 50,
    probeTimeoutMs: 3_000,
    waitCacheTimeoutMs: 5_000,
    retry: { initialMs: 50, maxMs: 400 },
    onStatus: (name, status) => history.push({ name, status }),
    ...options,
  });
  const aware = new RecordingAware();
  const ac = new AbortController();
  const done = provider.start(ac.signal, aware.context());
  const stop = async () => {
    ac.abort();
    await done;
  };
  running.push(stop);
  return { provider, aware, records, history, stop };
}

/** How many inotify watches this process holds (Linux), from the kernel's own account of each inotify descriptor. */
function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fdinfo')) {
    try {
      count += readFileSync(join('/proc/self/fdinfo', fd), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // closed since listed
    }
  }
  return count;
}

/** A kubeconfig with one context per member, named ctx-0, ctx-1, … */
function multiContext(servers: ApiServer[]): string {
  const docs = servers.map((s, i) => kubeconfigDoc(s, { contextName: `ctx-${i}` }));
  return toText({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'ctx-0',
    contexts: docs.flatMap((d) => d['contexts']),
    clusters: docs.flatMap((d) => d['clusters']),
    users: docs.flatMap((d) => d['users']),
  });
}

const ctx = (server: ApiServer) => server.name;

describe('KubeconfigFileProvider', () => {
  test('engages every context of every file found through files, folders and globs', async () => {
    const d = freshDir();
    mkdirSync(join(d, 'folder'));
    mkdirSync(join(d, 'globbed'));
    await writeFile(join(d, 'folder', 'two-contexts.yaml'), multiContext(members));
    await writeFile(join(d, 'folder', '.hidden'), members[0]!.kubeconfig());
    await writeFile(join(d, 'globbed', 'a.kubeconfig'), members[0]!.kubeconfig());
    await writeFile(join(d, 'globbed', 'ignored.txt'), members[0]!.kubeconfig());
    await writeFile(join(d, 'single'), members[1]!.kubeconfig());

    const { provider, aware } = start([join(d, 'folder'), join(d, 'globbed', '*.kubeconfig'), join(d, 'single')]);
    const expected = [
      `${join(d, 'folder', 'two-contexts.yaml')}+ctx-0`,
      `${join(d, 'folder', 'two-contexts.yaml')}+ctx-1`,
      `${join(d, 'globbed', 'a.kubeconfig')}+${ctx(members[0]!)}`,
      `${join(d, 'single')}+${ctx(members[1]!)}`,
    ].sort();
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(expected);
    expect(provider.names()).toEqual(expected);
    const c1 = await provider.get(`${join(d, 'folder', 'two-contexts.yaml')}+ctx-1`);
    expect((c1 as KubeCluster).server).toBe(members[1]!.url);
    expect(provider.fileStatus(join(d, 'folder', 'two-contexts.yaml'))).toEqual({ contexts: ['ctx-0', 'ctx-1'] });
    await expect(provider.get(`${join(d, 'globbed', 'ignored.txt')}+${ctx(members[0]!)}`)).rejects.toBeInstanceOf(ClusterNotFoundError);
  });

  test('an engaged member that stops answering shows as unreachable in its status, its metric and once in the log, and recovers', async () => {
    const member = await startApiServer();
    try {
      const d = freshDir();
      await writeFile(join(d, 'm.kubeconfig'), member.kubeconfig());
      const metrics = new PrometheusMetrics();
      const { provider, aware, records } = start([d], { healthCheck: { intervalMs: 50, timeoutMs: 2_000 }, metrics });
      const gauge = async () => /mcr_cluster_reachable\{cluster="[^"]+"\} (\d)/.exec(await metrics.scrape())?.[1];
      const name = `${join(d, 'm.kubeconfig')}+${ctx(member)}`;
      await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([name]);
      expect(provider.status(name)).toMatchObject({ state: 'engaged', health: { reachable: true } });
      expect(await gauge()).toBe('1');

      await member.stop();
      await expect.poll(() => provider.status(name)?.health?.reachable, { timeout: 10_000 }).toBe(false);
      expect(provider.status(name)).toMatchObject({ state: 'engaged', health: { lastError: expect.stringMatching(/connect/) } });
      const unreachableLines = () => records.filter((r) => r.includes('engaged cluster does not answer'));
      expect(unreachableLines()).toHaveLength(1);
      expect(unreachableLines()[0]).toContain(name);
      expect(await gauge()).toBe('0');

      await member.restart();
      await expect.poll(() => provider.status(name)?.health?.reachable, { timeout: 10_000 }).toBe(true);
      expect(records.filter((r) => r.includes('engaged cluster answers again'))).toHaveLength(1);
      expect(await gauge()).toBe('1');
      expect(unreachableLines()).toHaveLength(1);
    } finally {
      await member.close();
    }
  });

  test('follows files being added, changed, renamed and deleted', async () => {
    const d = freshDir();
    const { aware, provider } = start([d]);
    const a = join(d, 'a.yaml');
    const nameA = `${a}+${ctx(members[0]!)}`;

    await writeFile(a, members[0]!.kubeconfig());
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([nameA]);
    const first = aware.current(nameA)!;

    // Same context name, other server: the cluster is replaced.
    await writeFile(a, members[1]!.kubeconfig({ contextName: ctx(members[0]!) }));
    await expect.poll(() => first.signal.aborted, { timeout: 10_000 }).toBe(true);
    await expect.poll(() => (aware.current(nameA)?.cluster as KubeCluster | undefined)?.server, { timeout: 10_000 }).toBe(members[1]!.url);

    const b = join(d, 'b.yaml');
    await rename(a, b);
    const nameB = `${b}+${ctx(members[0]!)}`;
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([nameB]);
    await expect(provider.get(nameA)).rejects.toBeInstanceOf(ClusterNotFoundError);

    await rm(b);
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([]);
    // The status goes once the cluster has stopped.
    await expect.poll(() => provider.status(nameB), { timeout: 10_000 }).toBeUndefined();
  });

  test('a half-written or broken file keeps its healthy cluster on the last good config', async () => {
    const d = freshDir();
    const file = join(d, 'cluster.yaml');
    await writeFile(file, members[0]!.kubeconfig());
    const { aware, provider } = start([file]);
    const name = `${file}+${ctx(members[0]!)}`;
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([name]);
    const engaged = aware.current(name)!;

    const full = members[0]!.kubeconfig();
    for (const broken of ['', full.slice(0, full.length / 3), 'clusters: [oops', full.replace(/users:[\s\S]*?contexts:/, 'contexts:')]) {
      await writeFile(file, broken);
      await expect.poll(() => provider.status(name)?.reason ?? provider.fileStatus(file)?.problem, { timeout: 10_000 }).toBeTruthy();
      expect(engaged.signal.aborted).toBe(false);
      expect(provider.status(name)?.state).toBe('engaged');
      await writeFile(file, full);
      await expect.poll(() => provider.status(name)?.reason ?? provider.fileStatus(file)?.problem, { timeout: 10_000 }).toBeUndefined();
      expect(provider.status(name)?.state).toBe('engaged');
    }
    expect(aware.engagements).toHaveLength(1);

    // Deleting the file is final, even while it is broken.
    await writeFile(file, 'garbage: [');
    await expect.poll(() => provider.fileStatus(file)?.problem, { timeout: 10_000 }).toMatch(/not valid YAML/);
    await rm(file);
    await expect.poll(() => engaged.signal.aborted, { timeout: 10_000 }).toBe(true);
  });

  test('a file that cannot be examined keeps its cluster instead of counting as deleted', async () => {
    const d = freshDir();
    const file = join(d, 'x.yaml');
    await writeFile(file, members[0]!.kubeconfig());
    // chokidar reports the loop as a delete and then misses its real removal; the periodic rescan catches it.
    const { aware, provider } = start([d], { rescanIntervalMs: 200 });
    const name = `${file}+${ctx(members[0]!)}`;
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([name]);
    const engaged = aware.current(name)!;

    // Swap in a symlink to itself: stat fails with ELOOP, which says nothing about whether the config is gone.
    await symlink('x.yaml', join(d, '.swap'));
    await rename(join(d, '.swap'), file);
    await expect.poll(() => provider.fileStatus(file)?.problem, { timeout: 10_000 }).toMatch(/cannot be read \(ELOOP\)/);
    expect(engaged.signal.aborted).toBe(false);
    await rm(file);
    await expect.poll(() => engaged.signal.aborted, { timeout: 10_000 }).toBe(true);
  });

  test('a complete file renamed into place engages at once, without waiting for the debounce', async () => {
    const d = freshDir();
    // A minute of debounce: only the immediate load of a new, complete file can engage within the poll below.
    const { aware, provider } = start([join(d, '*.kubeconfig')], { debounceMs: 60_000 });
    await expect.poll(() => provider.statuses().size, { timeout: 10_000 }).toBe(0);
    const file = join(d, 'fast.kubeconfig');
    await writeFile(join(d, '.fast.tmp'), members[0]!.kubeconfig());
    await rename(join(d, '.fast.tmp'), file);
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([`${file}+${ctx(members[0]!)}`]);
  });

  test('a file written in pieces is read once complete (debounced)', async () => {
    const d = freshDir();
    const { aware, history } = start([d], { debounceMs: 300 });
    const file = join(d, 'slow-writer.yaml');
    const name = `${file}+${ctx(members[1]!)}`;
    const text = members[1]!.kubeconfig();
    await writeFile(file, text.slice(0, 40));
    await writeFile(file, text.slice(0, text.length - 30));
    await writeFile(file, text);
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([name]);
    expect(history.filter((h) => h.name === name).map((h) => h.status?.state)).toEqual(['pending', 'engaged']);
  });

  test('refuses hostile kubeconfig files without running anything; healthy files are unaffected', async () => {
    const d = freshDir();
    const plugin = markerPlugin(root, 'file-exec');
    const cases = hostileCases(plugin, root);
    await writeFile(join(d, 'healthy.yaml'), members[0]!.kubeconfig());
    for (const [i, c] of cases.entries()) {
      const doc = kubeconfigDoc(members[1]!, { contextName: `hostile-${i}` });
      c.alter(doc);
      await writeFile(join(d, `hostile-${i}.yaml`), toText(doc));
    }
    const { provider, aware, records } = start([d]);
    for (const [i, c] of cases.entries()) {
      await expect
        .poll(() => provider.status(`${join(d, `hostile-${i}.yaml`)}+hostile-${i}`), { timeout: 10_000 })
        .toMatchObject({ state: 'rejected', reason: expect.stringContaining(`"${c.capability}"`) });
    }
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([`${join(d, 'healthy.yaml')}+${ctx(members[0]!)}`]);
    expect(plugin.ran()).toBe(false);

    // A healthy file that turns hostile is disengaged (a complete, refused config), not kept.
    const healthy = aware.current(`${join(d, 'healthy.yaml')}+${ctx(members[0]!)}`)!;
    const doc = kubeconfigDoc(members[0]!);
    cases[0]!.alter(doc);
    await writeFile(join(d, 'healthy.yaml'), toText(doc));
    await expect.poll(() => healthy.signal.aborted, { timeout: 10_000 }).toBe(true);
    expect(plugin.ran()).toBe(false);
    const everything = [...records, JSON.stringify([...provider.statuses()])].join('\n');
    for (const secret of credentialsOf(kubeconfigDoc(members[0]!))) expect(everything).not.toContain(secret);
  });

  test('reports broken contexts, malformed files and unreachable servers per cluster', async () => {
    const d = freshDir();
    const closed = await startApiServer();
    await closed.stop();
    try {
      const noUser = kubeconfigDoc(members[0]!, { contextName: 'no-user' });
      noUser['contexts'][0]['context']['user'] = 'missing';
      await writeFile(join(d, 'no-user.yaml'), toText(noUser));
      await writeFile(join(d, 'malformed.yaml'), 'apiVersion: v1\ncontexts: [\n');
      await writeFile(join(d, 'closed.yaml'), closed.kubeconfig({ contextName: 'closed' }));
      await writeFile(join(d, 'fine.yaml'), members[1]!.kubeconfig({ contextName: 'fine' }));
      await writeFile(join(d, 'badcreds.yaml'), members[1]!.kubeconfig({ contextName: 'badcreds', user: { token: 'not-a-known-token' } }));
      const { provider, aware, records } = start([d]);

      await expect
        .poll(() => provider.status(`${join(d, 'no-user.yaml')}+no-user`), { timeout: 10_000 })
        .toMatchObject({ state: 'invalid', reason: expect.stringContaining('user "missing" not found') });
      await expect.poll(() => provider.fileStatus(join(d, 'malformed.yaml'))?.problem, { timeout: 10_000 }).toMatch(/not valid YAML/);
      await expect.poll(() => provider.status(`${join(d, 'closed.yaml')}+closed`)?.state, { timeout: 10_000 }).toBe('unreachable');
      await expect
        .poll(() => provider.status(`${join(d, 'badcreds.yaml')}+badcreds`), { timeout: 10_000 })
        .toMatchObject({ state: 'unauthorized', reason: expect.stringContaining('401') });
      await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([`${join(d, 'fine.yaml')}+fine`]);
      expect(records.join('\n')).not.toContain('not-a-known-token');

      await closed.restart();
      await expect
        .poll(() => aware.live(), { timeout: 10_000 })
        .toEqual([`${join(d, 'closed.yaml')}+closed`, `${join(d, 'fine.yaml')}+fine`]);
    } finally {
      await closed.close();
    }
  });

  test('a file that does not exist yet is picked up when it appears', async () => {
    const d = freshDir();
    const file = join(d, 'later.kubeconfig');
    const { aware } = start([file, join(d, 'sub', '*.kubeconfig')]);
    await writeFile(file, members[0]!.kubeconfig());
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([`${file}+${ctx(members[0]!)}`]);
  });

  test('follows a Kubernetes-style mounted Secret whose ..data symlink is swapped atomically', async () => {
    const d = freshDir();
    const version = async (tag: string, server: ApiServer) => {
      await mkdir(join(d, `..${tag}`));
      await writeFile(join(d, `..${tag}`, 'kubeconfig'), server.kubeconfig({ contextName: 'mounted' }));
    };
    await version('v1', members[0]!);
    await symlink(`..v1`, join(d, '..data'));
    await symlink('..data/kubeconfig', join(d, 'kubeconfig'));
    const { aware } = start([d]);
    const name = `${join(d, 'kubeconfig')}+mounted`;
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([name]);
    const first = aware.current(name)!;

    // What the kubelet's atomic writer does: new version folder, new link, rename over ..data, drop the old folder.
    await version('v2', members[1]!);
    await symlink('..v2', join(d, '..data_tmp'));
    await rename(join(d, '..data_tmp'), join(d, '..data'));
    await rm(join(d, '..v1'), { recursive: true });
    await expect.poll(() => (aware.current(name)?.cluster as KubeCluster | undefined)?.server, { timeout: 10_000 }).toBe(members[1]!.url);
    expect(first.signal.aborted).toBe(true);
    expect(aware.live()).toEqual([name]);
  });

  test('flapping files leave no sockets or timers behind', async () => {
    const d = freshDir();
    const file = join(d, 'flap.yaml');
    const name = `${file}+${ctx(members[0]!)}`;
    const openHandles = () =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TLSWrap' || r === 'Timeout').length;
    const before = openHandles();
    const { aware, stop } = start([d], { debounceMs: 10 });
    for (let i = 0; i < 27; i++) {
      await writeFile(file, members[i % 2]!.kubeconfig({ contextName: ctx(members[0]!) }));
      await expect
        .poll(() => (aware.current(name)?.cluster as KubeCluster | undefined)?.server, { timeout: 10_000 })
        .toBe(members[i % 2]!.url);
      if (i % 5 === 4) {
        await rm(file);
        await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([]);
      }
    }
    expect(aware.live()).toEqual([name]); // stopping while engaged
    await stop();
    expect(aware.live()).toEqual([]);
    // Every cluster's connection pool is closed; the servers' ends close as the FINs arrive.
    await expect.poll(openHandles, { timeout: 10_000 }).toBeLessThanOrEqual(before);
  });

  test('a rewrite right after a new file engaged is not lost to the watcher dropping its events', async () => {
    // chokidar drops a file's change events for 50 ms after one it reports, and often reports one with a new file's
    // add. Such a file is engaged at once and its own scan finds nothing new, so a rewrite inside that window has
    // neither an event nor a scan to be seen by, unless the provider looks again after the window.
    const d = freshDir();
    const { aware } = start([d], { debounceMs: 0, rescanIntervalMs: 0 });
    for (let i = 0; i < 40; i++) {
      const file = join(d, `new-${i}.yaml`);
      const name = `${file}+${ctx(members[0]!)}`;
      const server = () => (aware.current(name)?.cluster as KubeCluster | undefined)?.server;
      await writeFile(file, members[0]!.kubeconfig({ contextName: ctx(members[0]!) }));
      await expect.poll(server, { timeout: 10_000, interval: 1 }).toBe(members[0]!.url);
      await writeFile(file, members[1]!.kubeconfig({ contextName: ctx(members[0]!) }));
      await expect.poll(server, { timeout: 10_000 }).toBe(members[1]!.url);
      await rm(file);
      await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual([]);
    }
  });

  test('a file written while the watcher starts is still seen to go away, without the periodic rescan', async () => {
    // chokidar lists a folder before it watches it, and listing a full folder takes a while: a file created in
    // between is in neither, so chokidar never reports its removal (unless a later change in that folder makes it
    // list again). The folder's own change events still come. Ten folders, each with one file written at its own
    // moment of the start, so that some of them land in that gap.
    const d = freshDir();
    const folders = Array.from({ length: 10 }, (_, j) => join(d, `folder-${j}`));
    writeFileSync(join(d, 'filler'), '');
    for (const folder of folders) {
      mkdirSync(folder);
      for (let i = 0; i < 1_000; i++) linkSync(join(d, 'filler'), join(folder, `filler-${i}.txt`));
    }
    const { aware, provider, records } = start(
      folders.map((f) => join(f, '*.yaml')),
      { debounceMs: 0, rescanIntervalMs: 0 },
    );
    const files = folders.map((f) => join(f, 'member.yaml'));
    for (const file of files) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      writeFileSync(file, members[0]!.kubeconfig());
    }
    const names = files.map((f) => `${f}+${ctx(members[0]!)}`).sort();
    await expect.poll(() => provider.names(), { timeout: 20_000 }).toEqual(names);
    // Each removal only once the provider has stopped looking on its own: its scans would find any file gone.
    const quiet = () =>
      records
        .filter((r) => r.includes('"scanned kubeconfig files"'))
        .at(-1)
        ?.includes('"lookingAgain":false');
    for (const [i, file] of files.entries()) {
      await expect.poll(quiet, { timeout: 10_000 }).toBe(true);
      await rm(file);
      await expect.poll(() => aware.live().length, { timeout: 5_000 }).toBe(files.length - i - 1);
    }
  });

  test.runIf(process.platform === 'linux')('files the paths do not cover are not watched', async () => {
    const d = freshDir();
    // Files of their own: hard links would share one inode, and so one watch.
    for (let i = 0; i < 1_000; i++) writeFileSync(join(d, `notes-${i}.txt`), '');
    await writeFile(join(d, 'member.yaml'), members[0]!.kubeconfig());
    const before = inotifyWatches();
    const { aware } = start([join(d, '*.yaml')]);
    await expect.poll(() => aware.live().length, { timeout: 10_000 }).toBe(1);
    // The folder and its one kubeconfig, not the 1,000 notes beside them (chokidar watched each of them before).
    expect(inotifyWatches() - before).toBeLessThan(10);
  });

  test('stopping disengages everything and stops watching', async () => {
    const d = freshDir();
    await writeFile(join(d, 'a.yaml'), members[0]!.kubeconfig());
    const { aware, stop } = start([d]);
    await expect.poll(() => aware.live().length, { timeout: 10_000 }).toBe(1);
    await stop();
    expect(aware.live()).toEqual([]);
    await writeFile(join(d, 'b.yaml'), members[1]!.kubeconfig());
    // A second provider on the same folder sees b; by then a watcher that outlived stop would have seen it too.
    const witness = start([d]);
    await expect.poll(() => witness.aware.live().length, { timeout: 10_000 }).toBe(2);
    expect(aware.engagements).toHaveLength(1);
  });

  test('bad options are refused with a clear error', () => {
    expect(() => new KubeconfigFileProvider({ paths: [] })).toThrow(ProviderConfigError);
    expect(() => new KubeconfigFileProvider({ paths: [''] })).toThrow(/empty entries/);
    expect(() => new KubeconfigFileProvider({ paths: ['x'], debounceMs: -1 })).toThrow(/debounceMs/);
    expect(() => new KubeconfigFileProvider({ paths: ['x'], rescanIntervalMs: Number.NaN })).toThrow(/rescanIntervalMs/);
    expect(() => new KubeconfigFileProvider({} as KubeconfigFileProviderOptions)).toThrow(/at least one/);
  });

  test('a bad glob fails start with a clear error', async () => {
    const provider = new KubeconfigFileProvider({ paths: [join(root, '[unclosed')] });
    await expect(provider.start(new AbortController().signal, new RecordingAware().context())).rejects.toThrow(/bad path pattern/);
  });
});
