/**
 * A scaffolded controller, built with its own tsconfig and run as a process the way `npm start` runs it (settings
 * from the environment), finds its fleet through the provider the scaffold chose and reconciles a member, against
 * envtest's in-memory servers: a fake Gardener garden whose Shoot is backed by a server of its own, one cluster
 * whose labelled namespaces are members, a folder of kubeconfig files, a fake kcp with a workspace bound to the
 * project's APIExport, a fake Milo with a ready Project, and a management cluster with Cluster API's real Cluster CRD
 * (fetched from the Go module; skipped without Go) and an initialized Cluster, and an inventory hub with a healthy
 * ClusterProfile reached through cluster-inventory-api's real secretreader plugin (built from the Go module), and the
 * kind clusters tools/fake-kind's CLI lists. (The kubeconfig-Secrets project runs the same way on the real tier, under
 * RBAC, in scaffold.real.test.ts.) Projects are written under the repository's node_modules/.cache, so the built
 * project resolves @multicluster-runtime/* to the workspace's built packages.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject } from '@multicluster-runtime/core';
import type { ApiClient } from '@multicluster-runtime/core/client';
import { adminClient } from '../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { startGardenServer, type GardenServer } from '@multicluster-runtime/envtest/gardener';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { startMiloServer } from '@multicluster-runtime/envtest/milo';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import {
  capiCluster,
  capiClusterCrd,
  goMissing as capiGoMissing,
  kubeconfigSecret,
  markInitialized,
} from '../../provider-capi/src/capi-fixtures.test-util.js';
import { execExtension } from '@multicluster-runtime/provider-cluster-inventory-api';
import {
  clusterEntry,
  goMissing as inventoryMissing,
  installClusterProfileCrd,
  inventoryAssets,
  putProfile,
  secretreaderAccess,
} from '../../provider-cluster-inventory-api/src/inventory-fixtures.test-util.js';
import type { ProviderId } from './providers.js';
import { scaffold } from './scaffold.js';

const run = promisify(execFile);
const repoRoot = resolve(import.meta.dirname, '../../..');
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
let work: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(() => {
  mkdirSync(join(repoRoot, 'node_modules/.cache'), { recursive: true });
  work = mkdtempSync(join(repoRoot, 'node_modules/.cache/create-controller-run-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** An admin client of a server (tools/test-setup's), closed after the test. */
function clientOf(server: Pick<ApiServer, 'kubeconfig'>): ApiClient {
  const { client, close } = adminClient(server.kubeconfig());
  cleanups.push(close);
  return client;
}

/** Scaffolds and builds `provider`'s project, then runs it with `env` until the test ends; its output explains failures. */
async function startProject(provider: ProviderId, env: Record<string, string>): Promise<{ name: string; output: () => string }> {
  const name = `ctl-${provider}`;
  const dir = join(work, provider);
  scaffold({ dir, name, provider });
  await run(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: dir });
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: { PATH: process.env['PATH'], METRICS_BIND_ADDRESS: '127.0.0.1:0', HEALTH_PROBE_BIND_ADDRESS: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
  });
  return { name, output: () => output };
}

/** Labels a ConfigMap for the sample controller in `client`'s `namespace` and awaits its reply. */
async function expectReply(client: ApiClient, namespace: string, name: string, cluster: string, output: () => string) {
  await client.create({
    ...CONFIGMAP,
    metadata: { name: 'greeting', namespace, labels: { [`${name}.example.com/reply`]: 'true' } },
    data: { hello: 'world' },
  });
  await expect
    .poll(
      async () => {
        try {
          return (await client.get<KubeObject & { data?: unknown }>(CONFIGMAP, { namespace, name: 'greeting-reply' })).data;
        } catch {
          return output().slice(-2000);
        }
      },
      { timeout: 30_000 },
    )
    .toEqual({ cluster, keys: '1' });
}

/** A host for leader election and Events: an in-memory server with the controller's namespace. */
async function startHost(namespace: string): Promise<{ server: ApiServer; kubeconfig: string }> {
  const server = await startApiServer();
  cleanups.push(() => server.close());
  await clientOf(server).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const kubeconfig = join(work, `${namespace}-host.kubeconfig`);
  writeFileSync(kubeconfig, server.kubeconfig(), { mode: 0o600 });
  return { server, kubeconfig };
}

test('the Gardener project engages a shoot of its project in a fake garden and reconciles in it', async () => {
  const [host, garden, shoot]: [Awaited<ReturnType<typeof startHost>>, GardenServer, ApiServer] = await Promise.all([
    startHost('ctl-gardener-system'),
    startGardenServer(),
    startApiServer(),
  ]);
  cleanups.push(
    () => garden.close(),
    () => shoot.close(),
  );
  await garden.fixtures.createShoot('dev', 'web', { server: shoot });
  const gardenKubeconfig = join(work, 'garden.kubeconfig');
  writeFileSync(gardenKubeconfig, garden.kubeconfig(), { mode: 0o600 });
  const project = await startProject('gardener', {
    KUBECONFIG: host.kubeconfig,
    POD_NAMESPACE: 'ctl-gardener-system',
    GARDEN_KUBECONFIG: gardenKubeconfig,
    GARDEN_NAMESPACE: 'garden-dev',
  });
  const member = clientOf(shoot);
  await member.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await expectReply(member, 'apps', project.name, 'garden-dev/web', project.output);
  // Through the shoot's adminkubeconfig subresource, not the garden's own credentials.
  expect(garden.kubeconfigsIssued()).toBeGreaterThan(0);
}, 180_000);

test('the kind project engages the kind clusters its prefix matches and reconciles in them', async () => {
  const [host, member, other] = await Promise.all([startHost('ctl-kind-system'), startApiServer(), startApiServer()]);
  cleanups.push(
    () => member.close(),
    () => other.close(),
  );
  // tools/fake-kind's `kind` first on PATH, answering from a state file: the kind clusters on "this machine" (the
  // prefix leaves prod-one out).
  const state = join(work, 'kind-state.json');
  writeFileSync(state, JSON.stringify({ clusters: { 'dev-one': member.kubeconfig(), 'prod-one': other.kubeconfig() } }));
  const project = await startProject('kind', {
    KUBECONFIG: host.kubeconfig,
    POD_NAMESPACE: 'ctl-kind-system',
    KIND_PREFIX: 'dev-',
    FAKE_KIND_STATE: state,
    PATH: `${join(repoRoot, 'tools/fake-kind/bin')}:${process.env['PATH'] ?? ''}`,
  });
  const client = clientOf(member);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await expectReply(client, 'apps', project.name, 'dev-one', project.output);
}, 180_000);

test('the namespaces project engages the labelled namespaces of its cluster and reconciles in them', async () => {
  const host = await startHost('ctl-namespaces-system');
  const client = clientOf(host.server);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { fleet: 'on' } } });
  const project = await startProject('namespaces', { KUBECONFIG: host.kubeconfig, POD_NAMESPACE: 'ctl-namespaces-system' });
  await expectReply(client, 'team-a', project.name, 'team-a', project.output);
}, 180_000);

test('the kubeconfig-files project engages the contexts of the files its glob matches and reconciles in them', async () => {
  const [host, member] = await Promise.all([startHost('ctl-kubeconfig-files-system'), startApiServer()]);
  cleanups.push(() => member.close());
  const fleet = join(work, 'fleet');
  mkdirSync(fleet, { recursive: true });
  writeFileSync(join(fleet, 'one.kubeconfig'), member.kubeconfig({ contextName: 'one' }), { mode: 0o600 });
  const project = await startProject('kubeconfig-files', {
    KUBECONFIG: host.kubeconfig,
    POD_NAMESPACE: 'ctl-kubeconfig-files-system',
    FLEET_KUBECONFIGS: join(fleet, '*.kubeconfig'),
  });
  const client = clientOf(member);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await expectReply(client, 'apps', project.name, `${join(fleet, 'one.kubeconfig')}+one`, project.output);
}, 180_000);

test('the kcp project engages a workspace bound to its APIExport and reconciles in it through the virtual workspace', async () => {
  const [host, kcp] = await Promise.all([startHost('ctl-kcp-system'), startKcpServer()]);
  cleanups.push(() => kcp.close());
  const claims = [
    { group: '', resource: 'configmaps' },
    { group: 'events.k8s.io', resource: 'events' },
  ];
  const provider = await kcp.createWorkspace('root:provider');
  await kcp.createExport(provider, { name: 'ctl-kcp', permissionClaims: claims });
  const team = await kcp.createWorkspace('root:team');
  await kcp.bind(team, { exportPath: 'root:provider', exportName: 'ctl-kcp', acceptClaims: claims });
  const kcpKubeconfig = join(work, 'kcp.kubeconfig');
  writeFileSync(kcpKubeconfig, kcp.kubeconfig(provider), { mode: 0o600 });
  const project = await startProject('kcp', {
    KUBECONFIG: host.kubeconfig,
    POD_NAMESPACE: 'ctl-kcp-system',
    KCP_KUBECONFIG: kcpKubeconfig,
  });
  const client = clientOf({ kubeconfig: () => kcp.kubeconfig(team) });
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await expectReply(client, 'apps', project.name, team.name, project.output);
}, 180_000);

test('the Milo project engages a ready Project and reconciles in its control plane', async () => {
  const milo = await startMiloServer();
  cleanups.push(() => milo.close());
  await clientOf(milo).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ctl-milo-system' } });
  await milo.fixtures.createProject('alpha', { ready: true });
  const miloKubeconfig = join(work, 'milo.kubeconfig');
  writeFileSync(miloKubeconfig, milo.kubeconfig(), { mode: 0o600 });
  const project = await startProject('milo', { KUBECONFIG: miloKubeconfig, POD_NAMESPACE: 'ctl-milo-system' });
  const client = clientOf({ kubeconfig: () => milo.projectKubeconfig('alpha') });
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await expectReply(client, 'apps', project.name, 'alpha', project.output);
}, 180_000);

const goMissing = await capiGoMissing();

test.skipIf(goMissing !== undefined)(
  goMissing
    ? `the Cluster API project run skipped: ${goMissing}`
    : 'the Cluster API project engages an initialized Cluster through its kubeconfig Secret and reconciles in it',
  async () => {
    const ns = 'ctl-capi-system';
    const [host, workload] = await Promise.all([startHost(ns), startApiServer()]);
    cleanups.push(() => workload.close());
    const management = clientOf(host.server);
    await management.create(await capiClusterCrd());
    await vi.waitFor(() => management.list({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }), { timeout: 10_000 });
    const cluster = capiCluster(ns, 'w1');
    await management.create(cluster);
    await markInitialized(management, cluster);
    await management.create(kubeconfigSecret(ns, 'w1', workload.kubeconfig()));
    const project = await startProject('capi', { KUBECONFIG: host.kubeconfig, POD_NAMESPACE: ns });
    const client = clientOf(workload);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    await expectReply(client, 'apps', project.name, `${ns}/w1`, project.output);
  },
  180_000,
);

const inventoryGoMissing = await inventoryMissing();

test.skipIf(inventoryGoMissing !== undefined)(
  inventoryGoMissing
    ? `the cluster-profiles project run skipped: ${inventoryGoMissing}`
    : 'the cluster-profiles project engages a healthy ClusterProfile through the real secretreader plugin and reconciles in it',
  async () => {
    const ns = 'ctl-cluster-profiles-system';
    const [assets, host, spoke] = await Promise.all([inventoryAssets(), startHost(ns), startApiServer()]);
    cleanups.push(() => spoke.close());
    const hub = clientOf(host.server);
    await installClusterProfileCrd(hub, assets.clusterProfileCrd);
    // The plugin reads the member's token from a Secret on the hub, in its kubeconfig context's namespace.
    const hubForPlugin = join(work, 'hub-for-plugin.kubeconfig');
    await host.server.writeKubeconfig(hubForPlugin, { namespace: ns });
    spoke.addToken('spoke-token-3c9a', { username: 'inventory-consumer' });
    await hub.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: ns, name: 'spoke-1' },
      data: { token: Buffer.from('spoke-token-3c9a').toString('base64') },
    });
    await putProfile(hub, ns, 'spoke-1', {
      accessProviders: [
        {
          name: 'secretreader',
          cluster: clusterEntry(spoke.url, spoke.caPem, [{ name: execExtension, extension: { clusterName: 'spoke-1' } }]),
        },
      ],
    });
    const accessConfig = join(work, 'access-config.json');
    writeFileSync(accessConfig, JSON.stringify(secretreaderAccess(assets.secretreader, hubForPlugin)));
    const project = await startProject('cluster-profiles', { KUBECONFIG: host.kubeconfig, POD_NAMESPACE: ns, ACCESS_CONFIG: accessConfig });
    const client = clientOf(spoke);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    await expectReply(client, 'apps', project.name, `${ns}/spoke-1`, project.output);
  },
  180_000,
);
