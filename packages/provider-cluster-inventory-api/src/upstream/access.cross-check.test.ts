/**
 * Access rules against code written elsewhere: the same ClusterProfiles and the same operator access file go through
 * ClusterProfileProvider and through sigs.k8s.io/cluster-inventory-api's pkg/access (the code upstream's provider
 * reaches members with) driving client-go, built by tools/cluster-inventory-api/build.sh as `access-check`. Both sides
 * run one recording credential plugin, which writes down its argv, its environment and the ExecCredential it was
 * handed; every profile must reach the plugin alike, except where the README's "Differences from upstream" says this
 * provider refuses or differs on purpose, and each of those is a case here.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { newManager, silentLogger, type Client } from '@multicluster-runtime/core';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import {
  ClusterProfileProvider,
  additionalArgsExtension,
  additionalEnvsExtension,
  clusterProfileKind,
  execExtension,
  loadAccessConfigFile,
  type AccessProviderConfig,
  type ClusterProfile,
  type ProfileAccessProvider,
} from '../index.js';
import {
  adminClient,
  clusterEntry,
  goMissing,
  installClusterProfileCrd,
  inventoryAssets,
  putProfile,
  type InventoryAssets,
} from '../inventory-fixtures.test-util.js';

const run = promisify(execFile);
const missing = await goMissing();
const ns = 'fleet';
const token = 'cross-check-token-7d2a';

/** Records one run: argv, environment and the ExecCredential input, in a file of its own per run and side. */
const recordingPlugin = `#!/bin/sh
f="$(/usr/bin/mktemp "$RECORD_DIR/\${SIDE:-ts}.XXXXXX")"
{ for a in "$@"; do printf 'arg %s\\n' "$a"; done; /usr/bin/env | while IFS= read -r l; do printf 'env %s\\n' "$l"; done; printf 'info %s\\n' "$KUBERNETES_EXEC_INFO"; } > "$f"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "${token}"
`;

interface PluginRun {
  args: string[];
  env: Map<string, string>;
  /** The ExecCredential's spec.cluster: what the plugin is told about the cluster. */
  cluster: Record<string, unknown>;
}

let assets: InventoryAssets;
let hub: ApiServer;
let member: ApiServer;
let hubClient: Client;
let closeHubClient: () => Promise<void>;
let dir: string;
let providerFile: string;
const recordDir = () => join(dir, 'runs');

/** Operator providers: one per policy pair, since upstream changes an entry's invocation in place (see the leak). */
function operatorProviders(plugin: string): AccessProviderConfig[] {
  const entry = (name: string, policies: Partial<AccessProviderConfig> = {}): AccessProviderConfig => ({
    name,
    execConfig: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: plugin,
      args: ['--from-operator'],
      env: [
        { name: 'RECORD_DIR', value: recordDir() },
        { name: 'OPERATOR', value: 'operator' },
      ],
      provideClusterInfo: true,
    },
    ...policies,
  });
  return [
    entry('plain'),
    entry('second'),
    entry('append-keep', { profileSourcedCLIArgsPolicy: 'Append', profileSourcedEnvVarsPolicy: 'AppendIfNotExists' }),
    entry('append-replace', { profileSourcedCLIArgsPolicy: 'Append', profileSourcedEnvVarsPolicy: 'Replace' }),
    entry('leaky', { profileSourcedCLIArgsPolicy: 'Append', profileSourcedEnvVarsPolicy: 'Replace' }),
    entry('refuse-path', { profileSourcedEnvVarsPolicy: 'Replace' }),
    entry('refuse-shell', { profileSourcedCLIArgsPolicy: 'Append' }),
  ];
}

/** The member's cluster entry, with the exec extension that tells the plugin (and this test) which profile it is. */
function cluster(profile: string, extras: Record<string, unknown> = {}, extensions: Array<{ name: string; extension: unknown }> = []) {
  return {
    ...clusterEntry(member.url, member.caPem, [{ name: execExtension, extension: { profile } }, ...extensions]),
    ...extras,
  };
}

const extras = (args: string[], envs: Record<string, string>) => [
  { name: additionalArgsExtension, extension: args },
  { name: additionalEnvsExtension, extension: envs },
];

/** Each profile's access providers, by name; the status each side's outcome is held to is in the tests below. */
function profiles(): Record<string, { accessProviders?: ProfileAccessProvider[]; credentialProviders?: ProfileAccessProvider[] }> {
  return {
    // The first of the operator's providers the profile offers wins, in the operator's order.
    'a-order': {
      accessProviders: [
        { name: 'unknown', cluster: cluster('a-order') },
        { name: 'second', cluster: cluster('a-order') },
        { name: 'plain', cluster: cluster('a-order') },
      ],
    },
    'b-legacy': { credentialProviders: [{ name: 'plain', cluster: cluster('b-legacy') }] },
    // accessProviders win a name clash with the deprecated credentialProviders.
    'c-clash': {
      credentialProviders: [{ name: 'plain', cluster: { server: 'https://legacy.invalid:6443' } }],
      accessProviders: [{ name: 'plain', cluster: cluster('c-clash') }],
    },
    'd-ignored': { accessProviders: [{ name: 'plain', cluster: cluster('d-ignored', {}, extras(['--region=eu'], { REGION: 'eu' })) }] },
    'e-keep': {
      accessProviders: [
        {
          name: 'append-keep',
          cluster: cluster('e-keep', {}, extras(['--region=eu', 'two words'], { REGION: 'eu', OPERATOR: 'profile' })),
        },
      ],
    },
    'f-replace': {
      accessProviders: [
        { name: 'append-replace', cluster: cluster('f-replace', {}, extras(['--region=us'], { REGION: 'us', OPERATOR: 'profile' })) },
      ],
    },
    'g-leak-1': {
      accessProviders: [{ name: 'leaky', cluster: cluster('g-leak-1', {}, extras(['--secret=g-leak-1'], { SECRET: 'g-leak-1' })) }],
    },
    'g-leak-2': { accessProviders: [{ name: 'leaky', cluster: cluster('g-leak-2') }] },
    'h-tls-name': { accessProviders: [{ name: 'plain', cluster: cluster('h-tls-name', { 'tls-server-name': 'localhost' }) }] },
    'i-path': { accessProviders: [{ name: 'refuse-path', cluster: cluster('i-path', {}, extras([], { PATH: '/tmp/elsewhere' })) }] },
    'j-shell': { accessProviders: [{ name: 'refuse-shell', cluster: cluster('j-shell', {}, extras(['$(id)'], {})) }] },
    'k-http': { accessProviders: [{ name: 'plain', cluster: cluster('k-http', { server: member.url.replace('https:', 'http:') }) }] },
    'l-insecure': { accessProviders: [{ name: 'plain', cluster: cluster('l-insecure', { 'insecure-skip-tls-verify': true }) }] },
    'm-proxy': { accessProviders: [{ name: 'plain', cluster: cluster('m-proxy', { 'proxy-url': 'http://127.0.0.1:9' }) }] },
    'n-nobody': { accessProviders: [{ name: 'unknown', cluster: cluster('n-nobody') }] },
  };
}

/** The plugin runs of one side, by the profile named in the exec extension. */
async function runs(side: 'ts' | 'go'): Promise<Map<string, PluginRun[]>> {
  const out = new Map<string, PluginRun[]>();
  for (const file of (await readdir(recordDir())).filter((f) => f.startsWith(`${side}.`)).sort()) {
    const lines = (await readFile(join(recordDir(), file), 'utf8')).split('\n');
    const value = (prefix: string) => lines.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
    const info = JSON.parse(value('info ')[0] ?? '{}') as { spec?: { cluster?: Record<string, unknown> } };
    const env = new Map(value('env ').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]));
    const run: PluginRun = { args: value('arg '), env, cluster: info.spec?.cluster ?? {} };
    const profile = String((run.cluster['config'] as { profile?: string } | undefined)?.profile);
    out.set(profile, [...(out.get(profile) ?? []), run]);
  }
  return out;
}

/** The environment a profile or the operator can set: what the two sides' plugin environments are compared on. */
const settable = ['RECORD_DIR', 'OPERATOR', 'REGION', 'SECRET', 'PATH'];
const envOf = (r: PluginRun | undefined) => Object.fromEntries(settable.filter((n) => r?.env.has(n)).map((n) => [n, r!.env.get(n)]));

let ts: Map<string, PluginRun[]>;
let go: Map<string, PluginRun[]>;
let goResults: Map<string, { host?: string; request?: string; error?: string }>;
const tsStatus = new Map<string, string | undefined>();

beforeAll(async () => {
  if (missing) return;
  assets = await inventoryAssets();
  dir = await mkdtemp(join(tmpdir(), 'mcr-inventory-access-'));
  await mkdir(recordDir());
  const plugin = join(dir, 'recording-plugin.sh');
  await writeFile(plugin, recordingPlugin);
  await chmod(plugin, 0o755);
  [hub, member] = await Promise.all([startApiServer({ name: 'hub' }), startApiServer({ name: 'member' })]);
  member.addToken(token, { username: 'inventory-consumer' });
  ({ client: hubClient, close: closeHubClient } = adminClient(hub.kubeconfig(), 'hub-admin'));
  await installClusterProfileCrd(hubClient, assets.clusterProfileCrd);
  await hubClient.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  providerFile = join(dir, 'clusterprofile-provider-file.json');
  await writeFile(providerFile, JSON.stringify({ providers: operatorProviders(plugin) }, null, 2));
  for (const [name, status] of Object.entries(profiles())) await putProfile(hubClient, ns, name, status);

  // This provider, reading the same file, until every profile has an outcome.
  const kc = new KubeConfig();
  kc.loadFromString(hub.kubeconfig());
  const provider = new ClusterProfileProvider({ namespace: ns, accessConfig: loadAccessConfigFile(providerFile), probeTimeoutMs: 5_000 });
  const mgr = newManager(kc, provider, { logger: silentLogger });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  try {
    const names = Object.keys(profiles());
    await vi.waitFor(
      () => {
        for (const name of names) {
          const state = provider.status(`${ns}/${name}`)?.state;
          expect(state, name).toMatch(/^(engaged|rejected|invalid)$/);
          tsStatus.set(name, state);
        }
      },
      { timeout: 30_000, interval: 100 },
    );
  } finally {
    stop.abort();
    await done;
  }

  // pkg/access and client-go, on the same profiles as the hub stores them, in the order a list returns them.
  const stored = (await hubClient.list<ClusterProfile>(clusterProfileKind, { namespace: ns })).items;
  const child = run(assets.accessCheck, [providerFile], { env: { ...process.env, SIDE: 'go' }, timeout: 120_000 });
  child.child.stdin?.end(JSON.stringify(stored));
  const results = JSON.parse((await child).stdout) as Array<{ host?: string; request?: string; error?: string }>;
  goResults = new Map(stored.map((p, i) => [p.metadata.name!, results[i]!]));
  [ts, go] = await Promise.all([runs('ts'), runs('go')]);
}, 360_000);

afterAll(async () => {
  if (missing) return;
  await closeHubClient?.();
  await Promise.all([hub, member].map((s) => s?.close()));
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(missing)("access to a profile's cluster, beside sigs.k8s.io/cluster-inventory-api's pkg/access", () => {
  test.each(['a-order', 'b-legacy', 'c-clash', 'd-ignored', 'e-keep', 'f-replace'])(
    '%s: both reach the member and hand the plugin the same arguments, environment and cluster',
    (name) => {
      expect(tsStatus.get(name)).toBe('engaged');
      expect(goResults.get(name)).toMatchObject({ request: 'ok' });
      const [ours, theirs] = [ts.get(name)?.[0], go.get(name)?.[0]];
      expect(ours, 'this provider ran the plugin').toBeDefined();
      expect(theirs, 'upstream ran the plugin').toBeDefined();
      expect(ours!.args).toEqual(theirs!.args);
      expect(envOf(ours)).toEqual(envOf(theirs));
      expect(ours!.cluster).toEqual(theirs!.cluster);
    },
  );

  test('the policies do what their names say, on both sides', () => {
    expect(ts.get('d-ignored')?.[0]?.args).toEqual(['--from-operator']);
    expect(envOf(ts.get('d-ignored')?.[0])).not.toHaveProperty('REGION');
    expect(ts.get('e-keep')?.[0]?.args).toEqual(['--from-operator', '--region=eu', 'two words']);
    expect(envOf(ts.get('e-keep')?.[0])).toMatchObject({ REGION: 'eu', OPERATOR: 'operator' });
    expect(envOf(ts.get('f-replace')?.[0])).toMatchObject({ REGION: 'us', OPERATOR: 'profile' });
    expect(ts.get('a-order')?.[0]?.cluster).toMatchObject({ server: member.url, config: { profile: 'a-order' } });
  });

  test('a profile none of whose providers the operator configured reaches nobody, on both sides', () => {
    expect(tsStatus.get('n-nobody')).toBe('rejected');
    expect(goResults.get('n-nobody')?.error).toMatch(/no matching cluster accessor/);
    expect(ts.has('n-nobody') || go.has('n-nobody')).toBe(false);
  });

  test("upstream hands one profile's extra arguments and variables to every later profile of the same provider; here each gets its own", () => {
    expect(tsStatus.get('g-leak-2')).toBe('engaged');
    expect(ts.get('g-leak-2')?.[0]?.args).toEqual(['--from-operator']);
    expect(envOf(ts.get('g-leak-2')?.[0])).not.toHaveProperty('SECRET');
    // pkg/access appends to the operator's own exec config (a shared pointer), so g-leak-1's leftovers stay.
    expect(go.get('g-leak-2')?.[0]?.args).toEqual(['--from-operator', '--secret=g-leak-1']);
    expect(envOf(go.get('g-leak-2')?.[0])).toMatchObject({ SECRET: 'g-leak-1' });
  });

  test("a profile's tls-server-name reaches the connection and the plugin here; upstream drops it", () => {
    expect(tsStatus.get('h-tls-name')).toBe('engaged');
    expect(ts.get('h-tls-name')?.[0]?.cluster).toMatchObject({ 'tls-server-name': 'localhost' });
    expect(goResults.get('h-tls-name')).toMatchObject({ request: 'ok' });
    expect(go.get('h-tls-name')?.[0]?.cluster).not.toHaveProperty('tls-server-name');
  });

  test.each([
    ['i-path', 'rejected', 'a variable that changes which program runs (PATH)'],
    ['j-shell', 'rejected', 'an argument with shell syntax'],
    ['k-http', 'rejected', 'a server that is not https'],
    ['l-insecure', 'rejected', 'insecure-skip-tls-verify'],
    ['m-proxy', 'invalid', 'a proxy-url'],
  ])('%s: refused here (%s) and never run; upstream builds a client and runs the plugin: %s', (name, state) => {
    expect(tsStatus.get(name)).toBe(state);
    expect(ts.has(name)).toBe(false);
    expect(goResults.get(name)?.error).toBeUndefined();
    expect(go.get(name)?.length).toBeGreaterThan(0);
  });

  test('what upstream hands the plugin in the refused cases', () => {
    expect(envOf(go.get('i-path')?.[0])).toMatchObject({ PATH: '/tmp/elsewhere' });
    expect(go.get('j-shell')?.[0]?.args).toEqual(['--from-operator', '$(id)']);
    expect(go.get('k-http')?.[0]?.cluster).toMatchObject({ server: expect.stringMatching(/^http:/) });
    // The flag is dropped, not honoured: upstream verifies TLS anyway and reaches the member.
    expect(go.get('l-insecure')?.[0]?.cluster).not.toHaveProperty('insecure-skip-tls-verify');
    expect(goResults.get('l-insecure')).toMatchObject({ request: 'ok' });
    expect(go.get('m-proxy')?.[0]?.cluster).toMatchObject({ 'proxy-url': 'http://127.0.0.1:9' });
    expect(goResults.get('m-proxy')?.request).toMatch(/proxyconnect/); // it went for the profile's proxy
  });
});
