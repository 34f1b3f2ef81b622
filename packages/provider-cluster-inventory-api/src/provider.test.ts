/**
 * ClusterProfileProvider against in-memory API servers: the hub carries the real ClusterProfile CRD from
 * sigs.k8s.io/cluster-inventory-api, members are reached through the real `secretreader` plugin built from the same
 * module (it reads each member's token from a Secret on the hub), and a fake plugin (a shell script that records its
 * argv and environment) covers the failure modes and the untrusted-input refusals.
 */
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { ClusterNotFoundError, newManager, type Client, type KubeObject, type Logger } from '@multicluster-runtime/core';
import { ProviderConfigError } from '@multicluster-runtime/core/providers';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import {
  ClusterProfileProvider,
  additionalArgsExtension,
  additionalEnvsExtension,
  clusterProfileKind,
  execExtension,
  loadAccessConfigFile,
  type AccessConfig,
  type ClusterProfileProviderOptions,
} from './index.js';
import {
  adminClient,
  clusterEntry,
  goMissing,
  installClusterProfileCrd,
  inventoryAssets,
  putProfile,
  secretreaderAccess,
  type InventoryAssets,
} from './inventory-fixtures.test-util.js';

const missing = await goMissing();
const ns = 'fleet';
const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
const secretKind = { apiVersion: 'v1', kind: 'Secret' };
const memberToken = 'member-token-5b1e';

const fakePlugin = `#!/bin/sh
dir="$(dirname "$0")"
printf '%s\\n' "$@" > "$dir/ran-$MODE.args"
env > "$dir/ran-$MODE.env"
case "$MODE" in
  hang) exec sleep 60 ;;
  badjson) echo 'not json'; exit 0 ;;
  expired) printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2001-01-01T00:00:00Z"}}' "$TOKEN"; exit 0 ;;
  exit1) echo "no credential for $TOKEN" >&2; exit 1 ;;
  short) echo run >> "$dir/short-runs"
    printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}' "$TOKEN" "$(date -u -d '+20 seconds' +%Y-%m-%dT%H:%M:%SZ)"; exit 0 ;;
esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$TOKEN"
`;

let assets: InventoryAssets;
let hub: ApiServer;
let members: ApiServer[];
let hubClient: Client;
let closeHubClient: () => Promise<void>;
let dir: string;
let hubKubeconfigFile: string;
const stops: Array<{ stop: AbortController; done: Promise<void> }> = [];

beforeAll(async () => {
  if (missing) return;
  assets = await inventoryAssets();
  dir = await mkdtemp(join(tmpdir(), 'mcr-inventory-'));
  [hub, ...members] = await Promise.all([
    startApiServer({ name: 'hub' }),
    startApiServer({ name: 'spoke-1' }),
    startApiServer({ name: 'spoke-2' }),
  ]);
  ({ client: hubClient, close: closeHubClient } = adminClient(hub.kubeconfig(), 'hub-admin'));
  await installClusterProfileCrd(hubClient, assets.clusterProfileCrd);
  await hubClient.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // The secretreader plugin reads Secrets in its kubeconfig context's namespace.
  hubKubeconfigFile = join(dir, 'hub.kubeconfig');
  await hub.writeKubeconfig(hubKubeconfigFile, { namespace: ns });
  await writeFile(join(dir, 'fake-plugin.sh'), fakePlugin);
  await chmod(join(dir, 'fake-plugin.sh'), 0o755);
  for (const [i, m] of members.entries()) {
    m.addToken(memberToken, { username: 'inventory-consumer' });
    const admin = adminClient(m.kubeconfig(), `member-${i}`);
    await admin.client.create({ ...configMap, metadata: { namespace: 'default', name: 'identity' }, data: { member: String(i + 1) } });
    await admin.close();
  }
}, 360_000);

afterEach(async () => {
  if (missing) return;
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done;
  }
  for (const kind of [clusterProfileKind, secretKind]) {
    const list = await hubClient.list(kind, { namespace: ns });
    for (const o of list.items) await hubClient.delete(kind, { namespace: ns, name: o.metadata.name! });
  }
  for (const f of await readdir(dir)) if (f.startsWith('ran-')) await rm(join(dir, f));
});

afterAll(async () => {
  if (missing) return;
  await closeHubClient();
  await Promise.all([hub, ...members].map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

/** A logger that keeps every record as one JSON line, to look for secrets in. */
function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: (msg, fields) => void lines.push(JSON.stringify({ msg, fields })),
    info: (msg, fields) => void lines.push(JSON.stringify({ msg, fields })),
    warn: (msg, fields) => void lines.push(JSON.stringify({ msg, fields })),
    error: (msg, err, fields) => void lines.push(JSON.stringify({ msg, err: String(err), fields })),
    with: () => logger,
  };
  return logger;
}

function startManager(
  options: ClusterProfileProviderOptions,
  logLines: string[] = [],
): { mgr: MultiClusterManager; provider: ClusterProfileProvider } {
  const kc = new KubeConfig();
  kc.loadFromString(hub.kubeconfig());
  const provider = new ClusterProfileProvider({
    retry: { initialMs: 100, maxMs: 500 },
    probeTimeoutMs: 5_000,
    clusterOptions: { transport: { exec: { timeoutMs: 1_500 } } },
    ...options,
  });
  const mgr = newManager(kc, provider, { logger: recordingLogger(logLines) });
  const stop = new AbortController();
  stops.push({ stop, done: mgr.start(stop.signal) });
  return { mgr, provider };
}

/** One operator provider per fake-plugin mode, named `fake-<mode>`; `ok` mints the token members accept. */
function fakeAccess(overrides: Partial<AccessConfig['providers'][number]> = {}): AccessConfig {
  const modes = ['ok', 'hang', 'badjson', 'expired', 'exit1', 'bad', 'short'];
  return {
    providers: modes.map((mode) => ({
      name: `fake-${mode}`,
      execConfig: {
        command: join(dir, 'fake-plugin.sh'),
        args: ['--from-operator'],
        env: [
          { name: 'MODE', value: mode },
          { name: 'TOKEN', value: memberToken },
        ],
      },
      ...overrides,
    })),
  };
}

const tokenSecret = (name: string, token: string): KubeObject => ({
  ...secretKind,
  metadata: { namespace: ns, name },
  data: { token: Buffer.from(token).toString('base64') },
});

async function memberOf(mgr: MultiClusterManager, name: string): Promise<string | undefined> {
  const cluster = await mgr.getCluster(name);
  const cm = await cluster.client.get(configMap, { namespace: 'default', name: 'identity' });
  return (cm['data'] as Record<string, string>)['member'];
}

async function ran(mode: string): Promise<{ args: string[]; env: Map<string, string> } | undefined> {
  try {
    const args = (await readFile(join(dir, `ran-${mode}.args`), 'utf8')).split('\n').slice(0, -1);
    const env = new Map(
      (await readFile(join(dir, `ran-${mode}.env`), 'utf8'))
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]),
    );
    return { args, env };
  } catch {
    return undefined;
  }
}

describe.skipIf(missing !== undefined)('ClusterProfileProvider', () => {
  test('engages a healthy profile through the real secretreader plugin and follows a moved endpoint', async () => {
    const [one, two] = members as [ApiServer, ApiServer];
    await hubClient.create(tokenSecret('spoke-1', memberToken));
    const access = (server: ApiServer, secret: string) => [
      {
        name: 'secretreader',
        cluster: clusterEntry(server.url, server.caPem, [{ name: execExtension, extension: { clusterName: secret } }]),
      },
    ];
    await putProfile(hubClient, ns, 'spoke-1', { accessProviders: access(one, 'spoke-1') });
    const logs: string[] = [];
    const { mgr, provider } = startManager({ accessConfig: secretreaderAccess(assets.secretreader, hubKubeconfigFile) }, logs);
    await vi.waitFor(() => expect(provider.status('fleet/spoke-1')?.state).toBe('engaged'), { timeout: 20_000 });
    expect(await memberOf(mgr, 'fleet/spoke-1')).toBe('1');
    const first = await mgr.getCluster('fleet/spoke-1');

    // The cluster manager moves the member (new endpoint and CA, token under another Secret): a new engagement.
    await hubClient.create(tokenSecret('spoke-1-moved', memberToken));
    await putProfile(hubClient, ns, 'spoke-1', { accessProviders: access(two, 'spoke-1-moved') });
    await vi.waitFor(async () => expect(await memberOf(mgr, 'fleet/spoke-1')).toBe('2'), { timeout: 20_000 });
    expect(await mgr.getCluster('fleet/spoke-1')).not.toBe(first);
    expect(logs.join('\n')).not.toContain(memberToken);
  });

  test('the real plugin failing (no Secret for the member) shows in the status, and the member comes up once it exists', async () => {
    const server = members[0]!;
    await putProfile(hubClient, ns, 'late', {
      accessProviders: [
        {
          name: 'secretreader',
          cluster: clusterEntry(server.url, server.caPem, [{ name: execExtension, extension: { clusterName: 'late' } }]),
        },
      ],
    });
    const { mgr, provider } = startManager({ accessConfig: secretreaderAccess(assets.secretreader, hubKubeconfigFile) });
    await vi.waitFor(
      () =>
        expect(provider.status('fleet/late')).toMatchObject({
          state: 'unreachable',
          reason: expect.stringMatching(/secretreader.*exited with code 1/),
        }),
      { timeout: 20_000 },
    );
    await hubClient.create(tokenSecret('late', memberToken));
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/late'), { timeout: 20_000 });
  });

  test('a plugin that hangs, prints garbage, an expired token or exits 1 fails its member only, and no token is shown', async () => {
    const server = members[0]!;
    for (const mode of ['ok', 'hang', 'badjson', 'expired', 'exit1']) {
      await putProfile(hubClient, ns, mode, {
        accessProviders: [{ name: `fake-${mode}`, cluster: clusterEntry(server.url, server.caPem) }],
      });
    }
    const logs: string[] = [];
    const { mgr, provider } = startManager({ accessConfig: fakeAccess() }, logs);
    const expected: Record<string, RegExp> = {
      hang: /did not finish within 1500 ms/,
      badjson: /printed no valid ExecCredential: output is not JSON/,
      expired: /the credential expired at 2001-01-01/,
      exit1: /exited with code 1/,
    };
    await vi.waitFor(
      () => {
        expect(mgr.engagedClusters()).toEqual(['fleet/ok']);
        for (const [mode, reason] of Object.entries(expected)) {
          expect(provider.status(`fleet/${mode}`)).toMatchObject({ state: 'unreachable', reason: expect.stringMatching(reason) });
        }
      },
      { timeout: 20_000 },
    );
    const statuses = JSON.stringify([...provider.statuses()]);
    expect(statuses).not.toContain(memberToken);
    expect(logs.join('\n')).not.toContain(memberToken);
  });

  test('a short-lived credential is renewed before it expires, without re-engaging the member', async () => {
    const server = members[0]!;
    await putProfile(hubClient, ns, 'short', {
      accessProviders: [{ name: 'fake-short', cluster: clusterEntry(server.url, server.caPem) }],
    });
    // Tokens live 20 s; renewing 19 s before expiry means a new plugin run about every second while requests flow.
    const { mgr } = startManager({
      accessConfig: fakeAccess(),
      clusterOptions: { transport: { exec: { timeoutMs: 5_000, expirySkewMs: 19_000 } } },
    });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/short'), { timeout: 20_000 });
    const engaged = await mgr.getCluster('fleet/short');
    const runs = async () => (await readFile(join(dir, 'short-runs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const before = await runs();
    // Each direct read asks for the credential (cache reads do not reach the server).
    const direct = () => engaged.apiReader.get(configMap, { namespace: 'default', name: 'identity' });
    await vi.waitFor(
      async () => {
        expect((await direct())['data']).toEqual({ member: '1' });
        expect(await runs()).toBeGreaterThanOrEqual(before + 2);
      },
      // Well inside the 20 s lifetime: only renewal ahead of expiry runs the plugin this soon.
      { timeout: 10_000, interval: 200 },
    );
    expect(await mgr.getCluster('fleet/short')).toBe(engaged);
    await rm(join(dir, 'short-runs'), { force: true });
  });

  test('untrusted profiles: each refusal says why, and nothing is run', async () => {
    const server = members[0]!;
    const good = clusterEntry(server.url, server.caPem);
    const cases: Record<string, { accessProviders?: Array<{ name: string; cluster: Record<string, unknown> }> }> = {
      'no-access': {},
      unknown: { accessProviders: [{ name: 'curl-pipe-sh', cluster: good }] },
      'plain-http': { accessProviders: [{ name: 'fake-bad', cluster: { ...good, server: server.url.replace('https:', 'http:') } }] },
      'bad-ca': {
        accessProviders: [
          {
            name: 'fake-bad',
            cluster: {
              ...good,
              'certificate-authority-data': Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString(
                'base64',
              ),
            },
          },
        ],
      },
      insecure: { accessProviders: [{ name: 'fake-bad', cluster: { ...good, 'insecure-skip-tls-verify': true } }] },
      'shell-args': {
        accessProviders: [
          {
            name: 'fake-bad',
            cluster: { ...good, extensions: [{ name: additionalArgsExtension, extension: ['--ok', '$(touch /tmp/pwned)'] }] },
          },
        ],
      },
      'shell-env': {
        accessProviders: [
          { name: 'fake-bad', cluster: { ...good, extensions: [{ name: additionalEnvsExtension, extension: { PATH: '/tmp/evil' } }] } },
        ],
      },
      'bad-env-name': {
        accessProviders: [
          { name: 'fake-bad', cluster: { ...good, extensions: [{ name: additionalEnvsExtension, extension: { 'A;rm': 'x' } }] } },
        ],
      },
    };
    for (const [name, status] of Object.entries(cases)) await putProfile(hubClient, ns, name, status);
    const { provider } = startManager({
      accessConfig: fakeAccess({ profileSourcedCLIArgsPolicy: 'Append', profileSourcedEnvVarsPolicy: 'AppendIfNotExists' }),
    });
    const expected: Record<string, [string, RegExp]> = {
      'no-access': ['invalid', /status.accessProviders is empty/],
      unknown: [
        'rejected',
        /none of the profile's access providers \("curl-pipe-sh"\) is in the operator's access configuration \(configured: "fake-ok", /,
      ],
      'plain-http': ['rejected', /server is not https \(http:\): credentials only go over TLS/],
      'bad-ca': ['invalid', /certificate-authority-data holds a certificate that does not parse/],
      insecure: ['rejected', /insecure-skip-tls-verify is true/],
      'shell-args': ['rejected', /additional-args\]\[1\] holds shell syntax, a control character or is too long; nothing was run/],
      'shell-env': ['rejected', /sets PATH, which a profile may not set/],
      'bad-env-name': ['rejected', /not a valid environment variable name/],
    };
    await vi.waitFor(
      () => {
        for (const [name, [state, reason]] of Object.entries(expected)) {
          expect(provider.status(`fleet/${name}`), name).toMatchObject({ state, reason: expect.stringMatching(reason) });
        }
      },
      { timeout: 20_000 },
    );
    expect(await ran('bad')).toBeUndefined();
  });

  test("the profile's extra arguments and environment reach the plugin as argv and env, as far as the operator's policies allow", async () => {
    const server = members[0]!;
    const extensions = [
      { name: additionalArgsExtension, extension: ['--region=eu-1', 'two words'] },
      { name: additionalEnvsExtension, extension: { REGION: 'eu-1', MODE: 'from-profile' } },
    ];
    const profile = await putProfile(hubClient, ns, 'extras', {
      accessProviders: [{ name: 'fake-ok', cluster: clusterEntry(server.url, server.caPem, extensions) }],
    });
    // A real API server refuses a list under `extension` (the v0.1.2 CRD types it as an object); this one keeps it.
    expect(JSON.stringify(profile.status)).toContain('two words');
    const { mgr } = startManager({
      accessConfig: fakeAccess({ profileSourcedCLIArgsPolicy: 'Append', profileSourcedEnvVarsPolicy: 'AppendIfNotExists' }),
    });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/extras'), { timeout: 20_000 });
    const run = await ran('ok');
    expect(run?.args).toEqual(['--from-operator', '--region=eu-1', 'two words']);
    expect(run?.env.get('REGION')).toBe('eu-1');
    expect(run?.env.get('MODE')).toBe('ok'); // AppendIfNotExists: the operator's value wins
  });

  test('with the default policies the profile adds nothing to the plugin invocation', async () => {
    const server = members[0]!;
    const extensions = [
      { name: additionalArgsExtension, extension: ['--region=eu-1'] },
      { name: additionalEnvsExtension, extension: { REGION: 'eu-1' } },
    ];
    await putProfile(hubClient, ns, 'ignored', {
      accessProviders: [{ name: 'fake-ok', cluster: clusterEntry(server.url, server.caPem, extensions) }],
    });
    const { mgr } = startManager({ accessConfig: fakeAccess() });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/ignored'), { timeout: 20_000 });
    const run = await ran('ok');
    expect(run?.args).toEqual(['--from-operator']);
    expect(run?.env.has('REGION')).toBe(false);
  });

  test('readiness, deletion and filters decide what is engaged; not ready is told apart from unknown', async () => {
    const server = members[0]!;
    const access = { accessProviders: [{ name: 'fake-ok', cluster: clusterEntry(server.url, server.caPem) }] };
    await putProfile(hubClient, ns, 'prod', access, { env: 'prod' });
    await putProfile(hubClient, ns, 'dev', access, { env: 'dev' });
    await putProfile(hubClient, ns, 'sick', { ...access, healthy: false }, { env: 'prod' });
    const { mgr, provider } = startManager({ accessConfig: fakeAccess(), labelSelector: 'env=prod', namespace: ns });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(['fleet/prod']), { timeout: 20_000 });
    expect(provider.status('fleet/sick')).toMatchObject({ state: 'notReady', reason: 'the ControlPlaneHealthy condition is not True' });
    expect(provider.status('fleet/dev')).toBeUndefined();

    await putProfile(hubClient, ns, 'sick', access);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(['fleet/prod', 'fleet/sick']), { timeout: 20_000 });
    await putProfile(hubClient, ns, 'prod', { ...access, healthy: false });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(['fleet/sick']), { timeout: 20_000 });
    await hubClient.delete(clusterProfileKind, { namespace: ns, name: 'sick' });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual([]), { timeout: 20_000 });
    expect(provider.status('fleet/sick')).toBeUndefined();
    await expect(mgr.getCluster('fleet/sick')).rejects.toBeInstanceOf(ClusterNotFoundError);
  });

  test('deprecated credentialProviders work, with one warning; accessProviders win a name clash', async () => {
    const [one, two] = members as [ApiServer, ApiServer];
    await putProfile(hubClient, ns, 'legacy', { credentialProviders: [{ name: 'fake-ok', cluster: clusterEntry(one.url, one.caPem) }] });
    await putProfile(hubClient, ns, 'clash', {
      credentialProviders: [{ name: 'fake-ok', cluster: clusterEntry(one.url, one.caPem) }],
      accessProviders: [{ name: 'fake-ok', cluster: clusterEntry(two.url, two.caPem) }],
    });
    const logs: string[] = [];
    const { mgr } = startManager({ accessConfig: fakeAccess() }, logs);
    await vi.waitFor(
      async () => {
        expect(await memberOf(mgr, 'fleet/legacy')).toBe('1');
        expect(await memberOf(mgr, 'fleet/clash')).toBe('2');
      },
      { timeout: 20_000 },
    );
    const warnings = logs.filter((l) => l.includes('deprecated status.credentialProviders'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('fleet/legacy');
  });

  test('the legacy kubeconfig Secret strategy: exactly one Secret labelled for the profile and this consumer', async () => {
    const [one, two] = members as [ApiServer, ApiServer];
    const kubeconfigSecret = (name: string, profile: string, server: ApiServer): KubeObject => ({
      ...secretKind,
      metadata: {
        namespace: ns,
        name,
        labels: { 'x-k8s.io/cluster-inventory-consumer': 'my-controller', 'x-k8s.io/cluster-profile': profile },
      },
      data: { Config: Buffer.from(server.kubeconfig()).toString('base64') },
    });
    await putProfile(hubClient, ns, 'one', {});
    await putProfile(hubClient, ns, 'two', {});
    await putProfile(hubClient, ns, 'none', {});
    await hubClient.create(kubeconfigSecret('one-kc', 'one', one));
    await hubClient.create(kubeconfigSecret('two-kc-a', 'two', two));
    await hubClient.create(kubeconfigSecret('two-kc-b', 'two', two));
    const { mgr, provider } = startManager({ kubeconfigSecrets: { consumerName: 'my-controller' } });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(['fleet/one']), { timeout: 20_000 });
    expect(provider.status('fleet/two')).toMatchObject({
      state: 'invalid',
      reason: expect.stringMatching(/2 Secrets labelled .*\(two-kc-a, two-kc-b\); want exactly one/),
    });
    expect(provider.status('fleet/none')).toMatchObject({
      state: 'invalid',
      reason: expect.stringMatching(/no Secret labelled x-k8s.io\/cluster-inventory-consumer=my-controller/),
    });
    await hubClient.delete(secretKind, { namespace: ns, name: 'two-kc-b' });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(['fleet/one', 'fleet/two']), { timeout: 20_000 });
    expect(await memberOf(mgr, 'fleet/two')).toBe('2');

    // Relabelled to another profile: the profile it named loses it, the one it names now gains it.
    const moved = await hubClient.get<KubeObject>(secretKind, { namespace: ns, name: 'one-kc' });
    await hubClient.update({
      ...moved,
      metadata: { ...moved.metadata, labels: { ...moved.metadata.labels, 'x-k8s.io/cluster-profile': 'none' } },
    });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(['fleet/none', 'fleet/two']), { timeout: 20_000 });
    expect(provider.status('fleet/one')).toMatchObject({ state: 'invalid', reason: expect.stringMatching(/no Secret labelled/) });
    expect(await memberOf(mgr, 'fleet/none')).toBe('1');
  });
});

describe.skipIf(missing !== undefined)('access configuration', () => {
  test("reads the provider file sigs.k8s.io/cluster-inventory-api's example controller ships", () => {
    const config = loadAccessConfigFile(join(assets.secretreader, '..', 'secretreader-provider-config.json'));
    expect(config.providers).toEqual([
      expect.objectContaining({
        name: 'secretreader',
        execConfig: expect.objectContaining({ command: './bin/secretreader-plugin', provideClusterInfo: true }),
      }),
    ]);
  });

  test('a bad file or bad options fail at construction, naming the problem', async () => {
    const file = join(dir, 'access.json');
    await writeFile(file, '{"providers": [{"name": "a", "execConfig": {"comand": "x"}}]}');
    expect(() => loadAccessConfigFile(file)).toThrow(/access\.json: unknown option providers\[0\]\.execConfig\.comand$/);
    await writeFile(file, '{"providers": [{"name": "a", "execConfig": {}}, {"execConfig": {"command": "x"}}]}');
    expect(() => loadAccessConfigFile(file)).toThrow(/providers\[0\]\.execConfig\.command, providers\[1\]\.name are required/);
    await writeFile(file, '{"providers": [');
    expect(() => loadAccessConfigFile(file)).toThrow(/access\.json is not JSON/);
    expect(() => loadAccessConfigFile(join(dir, 'nope.json'))).toThrow(/cannot read the access configuration .*: ENOENT/);
    const exec = { command: 'plugin' };
    expect(() => new ClusterProfileProvider({})).toThrow(/exactly one of options.accessConfig and options.kubeconfigSecrets/);
    expect(
      () =>
        new ClusterProfileProvider({
          accessConfig: { providers: [{ name: 'a', execConfig: exec }] },
          kubeconfigSecrets: { consumerName: 'c' },
        }),
    ).toThrow(/exactly one of/);
    expect(() => new ClusterProfileProvider({ accessConfig: { providers: [] } })).toThrow(/"providers" is empty/);
    expect(
      () =>
        new ClusterProfileProvider({
          accessConfig: {
            providers: [
              { name: 'a', execConfig: exec },
              { name: 'a', execConfig: exec },
            ],
          },
        }),
    ).toThrow(/provider "a" is configured twice/);
    expect(
      () =>
        new ClusterProfileProvider({
          accessConfig: { providers: [{ name: 'a', execConfig: exec, profileSourcedEnvVarsPolicy: 'Overwrite' as 'Replace' }] },
        }),
    ).toThrow(ProviderConfigError);
    expect(() => new ClusterProfileProvider({ kubeconfigSecrets: { consumerName: 'c' }, labelSelector: 'a in (' })).toThrow(
      /labelSelector is invalid/,
    );
    expect(() => new ClusterProfileProvider({ kubeconfigSecrets: { consumerName: '' } })).toThrow(
      /consumerName must be a non-empty string/,
    );
  });
});
