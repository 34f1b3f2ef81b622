import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterNotFoundError, createLogger, newCluster, newManager } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { ProviderAlreadyStartedError } from '@multicluster-runtime/core/providers';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { KubeObject } from '@multicluster-runtime/core';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ProviderConfigError } from '@multicluster-runtime/core/providers';
import {
  RecordingAware,
  capturingLogger,
  credentialsOf,
  hostileCases,
  kubeconfigDoc,
  markerPlugin,
  runningCluster,
  toText,
} from './fleet.test-util.js';
import { DEFAULT_KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider, type KubeconfigSecretProviderOptions } from './secret-provider.js';

const NS = 'fleet';
const label = { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

let host: ApiServer;
let members: ApiServer[];
let hostCluster: KubeCluster;
let stopHost: () => Promise<void>;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcr-secrets-'));
  [host, ...members] = await Promise.all([startApiServer(), startApiServer(), startApiServer()]);
  ({ cluster: hostCluster, stop: stopHost } = await runningCluster(host));
  await hostCluster.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await hostCluster.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } });
});

afterAll(async () => {
  await stopHost?.();
  await Promise.all([host, ...members].map((s) => s?.close()));
  rmSync(dir, { recursive: true, force: true });
});

const running: Array<() => Promise<void>> = [];
let secretNames: Array<{ namespace: string; name: string }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((stop) => stop()));
  await Promise.all(secretNames.map((key) => hostCluster.client.delete({ apiVersion: 'v1', kind: 'Secret' }, key).catch(() => {})));
  secretNames = [];
});

function start(options: Partial<KubeconfigSecretProviderOptions> = {}) {
  const { logger, records } = capturingLogger();
  const provider = new KubeconfigSecretProvider({
    namespace: NS,
    hostCluster,
    logger,
    probeTimeoutMs: 3_000,
    waitCacheTimeoutMs: 5_000,
    retry: { initialMs: 50, maxMs: 400 },
    ...options,
  });
  const aware = new RecordingAware();
  const ac = new AbortController();
  const done = provider.start(ac.signal, aware.context());
  running.push(async () => {
    ac.abort();
    await done;
  });
  return { provider, aware, records, done, stop: running[running.length - 1]! };
}

async function putSecret(
  name: string,
  data: Record<string, string> | undefined,
  options: { labels?: Record<string, string>; namespace?: string } = {},
) {
  const namespace = options.namespace ?? NS;
  const secret: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: options.labels ?? label },
    ...(data ? { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) } : {}),
  };
  if (!secretNames.some((s) => s.name === name && s.namespace === namespace)) secretNames.push({ namespace, name });
  try {
    const present = await hostCluster.apiReader.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace, name });
    return await hostCluster.client.update({
      ...secret,
      metadata: { ...secret.metadata, resourceVersion: present.metadata.resourceVersion },
    });
  } catch {
    return hostCluster.client.create(secret);
  }
}

async function patchSecret(name: string, body: unknown) {
  return hostCluster.client.patch({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name }, { type: 'merge', body });
}

describe.each(['namespace', 'host-cache'] as const)('KubeconfigSecretProvider watching %s', (watch) => {
  test('engages the cluster of each labelled Secret in its namespace, named after the Secret', async () => {
    const { provider, aware } = start({ watch });
    await putSecret('east', { kubeconfig: members[0]!.kubeconfig() });
    await putSecret('west', { kubeconfig: members[1]!.kubeconfig() });
    await putSecret('unlabelled', { kubeconfig: members[0]!.kubeconfig() }, { labels: { other: 'x' } });
    await putSecret('foreign', { kubeconfig: members[0]!.kubeconfig() }, { namespace: 'elsewhere' });

    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['east', 'west']);
    expect(provider.names()).toEqual(['east', 'west']);
    await expect.poll(() => provider.status('east'), { timeout: 10_000 }).toMatchObject({ state: 'engaged', failures: 0 });
    expect(provider.status('unlabelled')).toBeUndefined();

    // The engaged cluster talks to the member the kubeconfig names.
    const east = await provider.get('east');
    await east.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `from-east-${watch}`, namespace: 'default' } });
    const { cluster: direct, stop } = await runningCluster(members[0]!);
    try {
      await expect(
        direct.client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: `from-east-${watch}` }),
      ).resolves.toBeTruthy();
    } finally {
      await stop();
    }
    await expect(provider.get('unlabelled')).rejects.toBeInstanceOf(ClusterNotFoundError);
  });

  test.each([
    [
      'the Secret is deleted',
      async () => {
        await hostCluster.client.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: 'gone' });
      },
    ],
    [
      'the key is removed',
      async () => {
        await putSecret('gone', { other: 'x' });
      },
    ],
    [
      'the key is emptied',
      async () => {
        await patchSecret('gone', { data: { kubeconfig: '' } });
      },
    ],
    [
      'the label is removed',
      async () => {
        await patchSecret('gone', { metadata: { labels: { [DEFAULT_KUBECONFIG_SECRET_LABEL]: null } } });
      },
    ],
    [
      'the Secret starts deleting',
      async () => {
        await patchSecret('gone', { metadata: { finalizers: ['example.com/hold'] } });
        await hostCluster.client.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: 'gone' });
      },
    ],
  ])('disengages when %s', async (_what, change) => {
    const { provider, aware } = start({ watch });
    await putSecret('gone', { kubeconfig: members[0]!.kubeconfig() });
    await putSecret('stays', { kubeconfig: members[1]!.kubeconfig() });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['gone', 'stays']);
    const engaged = aware.current('gone')!;

    await change();
    await expect.poll(() => engaged.signal.aborted, { timeout: 10_000 }).toBe(true);
    expect(aware.live()).toEqual(['stays']);
    await expect(provider.get('gone')).rejects.toBeInstanceOf(ClusterNotFoundError);
    // Remove the hold so cleanup can delete it.
    await patchSecret('gone', { metadata: { finalizers: null } }).catch(() => {});
  });
});

describe('KubeconfigSecretProvider', () => {
  test('honours a custom label selector and key', async () => {
    const { aware } = start({ labelSelector: 'fleet.example.com/member in (yes,true)', key: 'config' });
    await putSecret('custom', { config: members[0]!.kubeconfig() }, { labels: { 'fleet.example.com/member': 'yes' } });
    await putSecret('default-label', { kubeconfig: members[0]!.kubeconfig() });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['custom']);
  });

  test('re-engages when the connection changes, not when only metadata changes', async () => {
    const { provider, aware } = start();
    await putSecret('moving', { kubeconfig: members[0]!.kubeconfig() });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['moving']);
    const first = aware.current('moving')!;

    await patchSecret('moving', { metadata: { annotations: { touched: 'yes' } } });
    // Formatting changes that keep the connection are no-ops too.
    await patchSecret('moving', { data: { kubeconfig: b64(`${members[0]!.kubeconfig()}\n# reformatted\n`) } });
    const marker = await putSecret('marker', { kubeconfig: members[1]!.kubeconfig() });
    expect(marker).toBeTruthy();
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['marker', 'moving']);
    expect(aware.engagements.filter((e) => e.name === 'moving')).toHaveLength(1);
    expect(first.signal.aborted).toBe(false);

    await patchSecret('moving', { data: { kubeconfig: b64(members[1]!.kubeconfig()) } });
    await expect.poll(() => first.signal.aborted, { timeout: 10_000 }).toBe(true);
    await expect.poll(() => aware.current('moving')?.cluster, { timeout: 10_000 }).toBeTruthy();
    const second = aware.current('moving')!;
    expect(second.cluster).not.toBe(first.cluster);
    expect((second.cluster as KubeCluster).server).toBe(members[1]!.url);
    expect(await provider.get('moving')).toBe(second.cluster);
  });

  test('a Secret whose key is missing reports why', async () => {
    const { provider } = start();
    await putSecret('empty', { somethingElse: 'x' });
    await expect
      .poll(() => provider.status('empty'), { timeout: 10_000 })
      .toMatchObject({ state: 'invalid', reason: expect.stringContaining('no "kubeconfig" key') });
  });

  test('refuses hostile kubeconfigs without running anything, and the healthy cluster is unaffected', async () => {
    const plugin = markerPlugin(dir, 'secret-exec');
    const cases = hostileCases(plugin, dir);
    const { provider, aware, records } = start();
    await putSecret('healthy', { kubeconfig: members[0]!.kubeconfig() });
    for (const [i, c] of cases.entries()) {
      const doc = kubeconfigDoc(members[1]!);
      c.alter(doc);
      await putSecret(`hostile-${i}`, { kubeconfig: toText(doc) });
    }
    for (const [i, c] of cases.entries()) {
      await expect
        .poll(() => provider.status(`hostile-${i}`), { timeout: 10_000 })
        .toMatchObject({ state: 'rejected', reason: expect.stringContaining(`"${c.capability}"`) });
    }
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['healthy']);
    expect(plugin.ran()).toBe(false);
    expect(records.some((r) => r.includes('hostile-0') && r.includes('rejected'))).toBe(true);
  });

  test('an explicit allow-list lets a listed exec plugin run, and only that one', async () => {
    const listed = markerPlugin(dir, 'listed-exec');
    const unlisted = markerPlugin(dir, 'unlisted-exec');
    members[1]!.addToken('from-exec', 'exec-user');
    const { provider, aware } = start({ policy: { allow: ['exec'], execCommands: [listed.command] } });
    for (const [name, plugin] of [
      ['listed', listed],
      ['unlisted', unlisted],
    ] as const) {
      const doc = kubeconfigDoc(members[1]!);
      doc['users'][0]['user'] = {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin.command, interactiveMode: 'Never' },
      };
      await putSecret(name, { kubeconfig: toText(doc) });
    }
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['listed']);
    await expect
      .poll(() => provider.status('unlisted'), { timeout: 10_000 })
      .toMatchObject({ state: 'rejected', reason: expect.stringContaining('exec.command') });
    expect(listed.ran()).toBe(true);
    expect(unlisted.ran()).toBe(false);
  });

  test.each([
    ['malformed YAML', () => 'clusters: [\n  - name: x\n  bad', 'invalid', 'not valid YAML'],
    [
      'a missing context',
      () => toText({ ...kubeconfigDoc(members[0]!), 'current-context': 'nope' }),
      'invalid',
      'context "nope" not found',
    ],
    ['not base64 of a kubeconfig', () => '\u0000\u0001garbage', 'invalid', ''],
  ])('reports %s as %s', async (_what, text, state, reason) => {
    const { provider, aware } = start();
    await putSecret('broken', { kubeconfig: text() });
    await putSecret('fine', { kubeconfig: members[0]!.kubeconfig() });
    await expect
      .poll(() => provider.status('broken'), { timeout: 10_000 })
      .toMatchObject({ state, reason: expect.stringContaining(reason) });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['fine']);
  });

  test('an unreachable server is reported and retried until it answers, without holding up the others', async () => {
    const flaky = await startApiServer();
    try {
      await flaky.stop(); // the port is closed now
      const { provider, aware } = start();
      await putSecret('flaky', { kubeconfig: flaky.kubeconfig() });
      await putSecret('fine', { kubeconfig: members[0]!.kubeconfig() });
      await expect.poll(() => provider.status('flaky')?.state, { timeout: 10_000 }).toBe('unreachable');
      await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['fine']);
      await expect.poll(() => provider.status('flaky')?.failures ?? 0, { timeout: 10_000 }).toBeGreaterThan(1);

      await flaky.restart();
      await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['fine', 'flaky']);
      await expect.poll(() => provider.status('flaky'), { timeout: 10_000 }).toMatchObject({ state: 'engaged', failures: 0 });
    } finally {
      await flaky.close();
    }
  });

  test('a slow server does not delay engaging the others', async () => {
    const slow = await startApiServer();
    try {
      slow.faults.setLatency(4_000);
      const { provider, aware } = start({ probeTimeoutMs: 20_000 });
      await putSecret('slow', { kubeconfig: slow.kubeconfig() });
      await putSecret('quick', { kubeconfig: members[0]!.kubeconfig() });
      await expect.poll(() => aware.live(), { timeout: 3_000 }).toEqual(['quick']);
      expect(provider.status('slow')?.state).toBe('pending');
      await expect.poll(() => aware.live(), { timeout: 15_000 }).toEqual(['quick', 'slow']);
    } finally {
      slow.faults.setLatency(0);
      await slow.close();
    }
  });

  test('bad credentials are reported as unauthorized, never logged, and retried', async () => {
    const token = 'never-log-this-token-0123456789';
    const doc = kubeconfigDoc(members[0]!, { user: { token } });
    const { provider, aware, records } = start();
    await putSecret('badcreds', { kubeconfig: toText(doc) });
    await expect.poll(() => provider.status('badcreds')?.state, { timeout: 10_000 }).toBe('unauthorized');
    expect(provider.status('badcreds')?.reason).toMatch(/401/);

    members[0]!.addToken(token, 'fleet-admin');
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['badcreds']);

    const admin = kubeconfigDoc(members[1]!);
    await putSecret('admin', { kubeconfig: toText(admin) });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['admin', 'badcreds']);
    const everything = [...records, JSON.stringify([...provider.statuses()])].join('\n');
    for (const secret of [token, ...credentialsOf(admin)]) expect(everything).not.toContain(secret);
  });

  test('rapid changes converge on the last content, with one engagement left', async () => {
    const { provider, aware } = start();
    const plugin = markerPlugin(dir, 'rapid-exec');
    const hostile = kubeconfigDoc(members[0]!);
    hostileCases(plugin, dir)[0]!.alter(hostile);
    const versions = [members[0]!.kubeconfig(), toText(hostile), 'not: [yaml', members[1]!.kubeconfig(), members[0]!.kubeconfig()];
    for (let i = 0; i < 20; i++) await putSecret('rapid', { kubeconfig: versions[i % versions.length]! });
    await putSecret('rapid', { kubeconfig: members[1]!.kubeconfig() });
    await expect
      .poll(() => (aware.current('rapid')?.cluster as KubeCluster | undefined)?.server, { timeout: 10_000 })
      .toBe(members[1]!.url);
    expect(aware.live()).toEqual(['rapid']);
    await expect.poll(() => provider.status('rapid'), { timeout: 10_000 }).toMatchObject({ state: 'engaged' });
    expect(plugin.ran()).toBe(false);
  });

  test('a cluster that stops on its own is reported and reconnected', async () => {
    const crashes: Array<() => void> = [];
    const { provider, aware } = start({
      // A real cluster whose start the test can end early, as a failing cache would.
      newCluster: (config, options) => {
        const real = newCluster(config, options);
        let crash!: () => void;
        const crashed = new Promise<void>((resolve) => {
          crash = resolve;
        });
        crashes.push(crash);
        return Object.assign(Object.create(real) as KubeCluster, {
          start: async (signal: AbortSignal) => {
            const inner = new AbortController();
            const done = real.start(inner.signal);
            await Promise.race([whenAborted(signal), crashed]);
            inner.abort();
            await done;
          },
        });
      },
    });
    await putSecret('fragile', { kubeconfig: members[0]!.kubeconfig() });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['fragile']);
    const first = aware.current('fragile')!;
    crashes[crashes.length - 1]!();
    await expect.poll(() => first.signal.aborted, { timeout: 10_000 }).toBe(true);
    await expect.poll(() => aware.current('fragile')?.cluster, { timeout: 10_000 }).toBeTruthy();
    expect(aware.current('fragile')!.cluster).not.toBe(first.cluster);
    await expect.poll(() => provider.status('fragile'), { timeout: 10_000 }).toMatchObject({ state: 'engaged', failures: 0 });
  });

  test('edits that keep a failing connection do not cut its backoff short', async () => {
    const locked = await startApiServer();
    try {
      const { provider, aware } = start({ retry: { initialMs: 60_000, maxMs: 60_000 } });
      await putSecret('locked', { kubeconfig: locked.kubeconfig({ user: { token: 'unknown-token' } }) });
      await expect.poll(() => provider.status('locked')?.state, { timeout: 10_000 }).toBe('unauthorized');
      const requests = locked.stats().requests;
      for (let i = 0; i < 3; i++) await patchSecret('locked', { metadata: { annotations: { edit: String(i) } } });
      // Events arrive in order: once this later Secret is engaged, the edits above have been seen.
      await putSecret('later', { kubeconfig: members[0]!.kubeconfig() });
      await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['later']);
      expect(locked.stats().requests).toBe(requests);
      expect(provider.status('locked')).toMatchObject({ state: 'unauthorized', failures: 1 });
    } finally {
      await locked.close();
    }
  });

  test('many Secrets engage concurrently and leave no sockets or timers behind when they go', async () => {
    const openHandles = () =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TLSWrap' || r === 'Timeout').length;
    const before = openHandles();
    const { aware, stop } = start();
    const names = Array.from({ length: 40 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name, i) => putSecret(name, { kubeconfig: members[i % 2]!.kubeconfig() })));
    await expect.poll(() => aware.live(), { timeout: 20_000 }).toEqual(names);
    await Promise.all(names.map((name) => hostCluster.client.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name })));
    await expect.poll(() => aware.live(), { timeout: 20_000 }).toEqual([]);
    await stop();
    await expect.poll(openHandles, { timeout: 10_000 }).toBeLessThanOrEqual(before);
  });

  test('stopping disengages every cluster and stops watching', async () => {
    const { aware, stop } = start();
    await putSecret('one', { kubeconfig: members[0]!.kubeconfig() });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['one']);
    const engaged = aware.current('one')!;
    await stop();
    expect(engaged.signal.aborted).toBe(true);
    await putSecret('two', { kubeconfig: members[1]!.kubeconfig() });
    expect(aware.engagements.map((e) => e.name)).toEqual(['one']);
  });

  test('takes the host cluster from its start context, and refuses to start without one', async () => {
    const { logger } = capturingLogger();
    const provider = new KubeconfigSecretProvider({ namespace: NS, logger });
    const aware = new RecordingAware();
    const ac = new AbortController();
    const done = provider.start(ac.signal, aware.context({ localCluster: hostCluster }));
    running.push(async () => {
      ac.abort();
      await done;
    });
    await putSecret('via-manager', { kubeconfig: members[0]!.kubeconfig() });
    await expect.poll(() => aware.live(), { timeout: 10_000 }).toEqual(['via-manager']);
    await expect(provider.start(ac.signal, aware.context())).rejects.toBeInstanceOf(ProviderAlreadyStartedError);

    const orphan = new KubeconfigSecretProvider({ namespace: NS });
    await expect(orphan.start(new AbortController().signal, new RecordingAware().context())).rejects.toThrow(/no host cluster/);
  });

  test("started by a manager without a logger option, it logs refusals and unreachable members through the manager's logger", async () => {
    const plugin = markerPlugin(dir, 'manager-logged-exec');
    const hostile = kubeconfigDoc(members[1]!);
    hostileCases(plugin, dir)[0]!.alter(hostile);
    const gone = await startApiServer();
    await gone.stop(); // its port is closed now
    const records: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'debug', sink: (level, msg, fields) => records.push({ level, msg, ...fields }) });
    // No hostCluster and no logger: the host cluster and the logger both come from the manager.
    const provider = new KubeconfigSecretProvider({ namespace: NS, probeTimeoutMs: 3_000, retry: { initialMs: 50, maxMs: 400 } });
    const mgr = newManager(loadUntrustedKubeconfig(host.kubeconfig()), provider, { logger });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    running.push(async () => {
      ac.abort();
      await done;
      await gone.close();
    });
    await putSecret('healthy', { kubeconfig: members[0]!.kubeconfig() });
    await putSecret('hostile', { kubeconfig: toText(hostile) });
    await putSecret('unreachable', { kubeconfig: gone.kubeconfig() });
    await expect.poll(() => mgr.engagedClusters(), { timeout: 10_000 }).toEqual(['healthy']);
    const lines = (cluster: string) => records.filter((r) => r['cluster'] === cluster && r['level'] === 'warn');
    await expect
      .poll(() => lines('hostile'), { timeout: 10_000 })
      .toEqual([
        expect.objectContaining({
          provider: 'kubeconfig-secrets',
          state: 'rejected',
          msg: expect.stringContaining('refused'),
          reason: expect.stringContaining(`"${hostileCases(plugin, dir)[0]!.capability}"`),
        }),
      ]);
    await expect.poll(() => provider.status('unreachable')?.failures ?? 0, { timeout: 10_000 }).toBeGreaterThan(2);
    // Retries of the same failure add no lines: one warning for the outage.
    expect(lines('unreachable')).toEqual([
      expect.objectContaining({ provider: 'kubeconfig-secrets', state: 'unreachable', msg: expect.stringContaining('unreachable') }),
    ]);
    expect(plugin.ran()).toBe(false);
  });

  test('bad options are refused with a clear error', () => {
    expect(() => new KubeconfigSecretProvider({} as KubeconfigSecretProviderOptions)).toThrow(ProviderConfigError);
    expect(() => new KubeconfigSecretProvider({} as KubeconfigSecretProviderOptions)).toThrow(/namespace is required/);
    expect(() => new KubeconfigSecretProvider({ namespace: NS, labelSelector: 'a in (' })).toThrow(/labelSelector is invalid/);
    expect(() => new KubeconfigSecretProvider({ namespace: NS, key: '' })).toThrow(/key must be/);
    expect(() => new KubeconfigSecretProvider({ namespace: NS, probeTimeoutMs: -1 })).toThrow(/probeTimeoutMs must be a positive/);
    expect(() => new KubeconfigSecretProvider({ namespace: NS, retry: { initialMs: 0 } })).toThrow(/retry.initialMs/);
    expect(() => new KubeconfigSecretProvider({ namespace: NS, watch: 'cluster' as 'namespace' })).toThrow(/options.watch/);
    // A mistyped capability would silently allow nothing; it is refused with the one it is close to.
    expect(() => new KubeconfigSecretProvider({ namespace: NS, policy: { allow: ['insecure' as 'insecureTransport'] } })).toThrow(
      'options.policy.allow[0] must be one of "exec", "authProvider", "localFiles", "insecureTransport", got "insecure" (did you mean "insecureTransport"?)',
    );
    expect(() => new KubeconfigSecretProvider({ namespace: NS, policy: { allowed: ['exec'] } as never })).toThrow(
      /unknown option options.policy.allowed/,
    );
  });
});
