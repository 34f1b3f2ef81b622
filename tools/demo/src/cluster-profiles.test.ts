/**
 * `npm start -- --cluster-profiles NAMESPACE --access-config FILE`: the demo's controllers on a cluster inventory hub
 * ($KUBECONFIG), whose healthy ClusterProfile names a member reached through the operator's credential plugin.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { newCluster, type Client } from '@multicluster-runtime/core';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { runDemo } from './demo.js';
import { mirrorName } from './controllers.js';

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
const profileKind = { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ClusterProfile' };
let hub: ApiServer;
let spoke: ApiServer;
let dir: string;
const clusters: Array<ReturnType<typeof newCluster>> = [];
const savedKubeconfig = process.env['KUBECONFIG'];

function clientOf(kubeconfig: string): Client {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const cluster = newCluster(kc);
  clusters.push(cluster);
  return cluster.apiReader;
}

beforeAll(async () => {
  [hub, spoke] = await Promise.all([startApiServer({ name: 'hub' }), startApiServer({ name: 'spoke-1' })]);
  dir = await mkdtemp(join(tmpdir(), 'demo-profiles-'));
  spoke.addToken('spoke-token', { username: 'inventory-consumer' });
  const member = clientOf(spoke.kubeconfig());
  await member.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
  const labels = { 'app.kubernetes.io/part-of': 'demo' };
  await member.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'demo', name: 'web', labels },
    data: { replicas: '1' },
  });

  const h = clientOf(hub.kubeconfig());
  await h.create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'clusterprofiles.multicluster.x-k8s.io' },
    spec: {
      group: 'multicluster.x-k8s.io',
      scope: 'Namespaced',
      names: { kind: 'ClusterProfile', plural: 'clusterprofiles', singular: 'clusterprofile', listKind: 'ClusterProfileList' },
      versions: [{ name: 'v1alpha1', served: true, storage: true, schema: openSchema, subresources: { status: {} } }],
    },
  });
  await h.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } });
  const profile = await vi.waitFor(
    () => h.create({ ...profileKind, metadata: { namespace: 'fleet', name: 'spoke-1' }, spec: { clusterManager: { name: 'demo' } } }),
    { timeout: 10_000 },
  );
  const healthy = {
    type: 'ControlPlaneHealthy',
    status: 'True',
    reason: 'Healthy',
    message: '',
    lastTransitionTime: '2026-11-26T10:00:00Z',
  };
  const cluster = { server: spoke.url, 'certificate-authority-data': Buffer.from(spoke.caPem).toString('base64') };
  await h.updateStatus({ ...profile, status: { conditions: [healthy], accessProviders: [{ name: 'token-plugin', cluster }] } });

  const plugin = join(dir, 'plugin.sh');
  await writeFile(
    plugin,
    `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"spoke-token"}}'\n`,
  );
  await chmod(plugin, 0o755);
  await writeFile(join(dir, 'access.json'), JSON.stringify({ providers: [{ name: 'token-plugin', execConfig: { command: plugin } }] }));
  await hub.writeKubeconfig(join(dir, 'hub.kubeconfig'));
  process.env['KUBECONFIG'] = join(dir, 'hub.kubeconfig');
});

afterAll(async () => {
  if (savedKubeconfig === undefined) delete process.env['KUBECONFIG'];
  else process.env['KUBECONFIG'] = savedKubeconfig;
  await Promise.all(clusters.map((c) => c.close()));
  await Promise.all([hub, spoke].map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

test('--cluster-profiles runs the demo controllers on the members of a ClusterProfile hub', async () => {
  const stop = new AbortController();
  const out = new PassThrough();
  out.resume();
  const hubClient = clientOf(hub.kubeconfig());
  const demo = runDemo(
    {
      clusters: 0,
      maxClusters: 1,
      churnSec: 0,
      plain: true,
      source: { kind: 'cluster-profiles', namespace: 'fleet', accessConfig: join(dir, 'access.json') },
    },
    stop.signal,
    out,
  );
  // The mirror controller copied the member's ConfigMap into the hub: the member was engaged and reconciled.
  await vi.waitFor(
    () => hubClient.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'fleet', name: mirrorName('fleet/spoke-1', 'demo', 'web') }),
    {
      timeout: 30_000,
    },
  );
  stop.abort();
  const summary = await demo;
  const row = summary.rows.find((r) => r.cluster === 'fleet/spoke-1');
  expect(row?.reconciles['stamp']).toBeGreaterThanOrEqual(1);
  expect(row?.reconciles['mirror']).toBeGreaterThanOrEqual(1);
}, 60_000);
