/**
 * The README examples that must run, and what each needs and must show. Examples read only what a user's program
 * would: $KUBECONFIG for the host cluster, `./fleet/*.kubeconfig` in the working directory, Secrets on the host,
 * `kind` on PATH (here tools/fake-kind, answering from a state file with in-memory servers as the kind clusters).
 */
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../workspace.js';
import { configMap, ensureNamespace, freePort, kubeconfigSecret, servingCertificate, until, type ExampleFixtures } from './fixtures.js';
import type { ExampleScenario } from './scenario.js';

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

/** The host cluster written to a kubeconfig file named by $KUBECONFIG. */
async function host(fx: ExampleFixtures) {
  const cluster = await fx.cluster('host');
  return { ...cluster, env: { KUBECONFIG: fx.file('host.kubeconfig', cluster.kubeconfig) } };
}

export const readmeScenarios: ExampleScenario[] = [
  {
    readme: 'packages/core/README.md',
    packages: ['core'],
    async prepare(fx) {
      const h = await host(fx);
      await h.client.create(configMap('default', 'first'));
      return {
        cwd: fx.dir,
        env: h.env,
        runsUntilSignalled: true,
        steps: [
          { expect: [/reconciled default\/first/] },
          { act: () => h.client.create(configMap('default', 'second')).then(() => undefined), expect: [/reconciled default\/second/] },
        ],
      };
    },
  },
  {
    readme: 'packages/apimachinery/README.md',
    packages: ['apimachinery'],
    prepare(fx) {
      const lines = [
        /^true$/m,
        /app=web,!legacy,tier in \(edge,frontend\)/,
        /field: 'metadata\.name'.*value: 'a,b'/s,
        /^true key "Example\.com\/x": prefix part/m,
      ];
      return Promise.resolve({ cwd: fx.dir, env: {}, runsUntilSignalled: false, steps: [{ expect: lines }] });
    },
  },
  {
    readme: 'packages/envtest/README.md',
    packages: ['envtest'],
    prepare(fx) {
      return Promise.resolve({ cwd: fx.dir, env: {}, runsUntilSignalled: false, steps: [{ expect: [/\{ a: 'b' \}/] }] });
    },
  },
  {
    readme: 'packages/provider-kubeconfig/README.md',
    packages: ['core', 'provider-kubeconfig'],
    async prepare(fx) {
      const h = await host(fx);
      const member = await fx.cluster('member');
      await member.client.create(configMap('default', 'in-member'));
      await ensureNamespace(h.client, 'fleet-system');
      await h.client.create(kubeconfigSecret('fleet-system', 'prod-eu', member.kubeconfig));
      return {
        cwd: fx.dir,
        env: h.env,
        runsUntilSignalled: true,
        steps: [
          { expect: [/prod-eu: default\/in-member/] },
          { act: () => member.client.create(configMap('default', 'later')).then(() => undefined), expect: [/prod-eu: default\/later/] },
        ],
      };
    },
  },
  {
    readme: 'packages/provider-multi/README.md',
    packages: ['core', 'provider-multi', 'provider-kubeconfig'],
    async prepare(fx) {
      const h = await host(fx);
      const [a, b] = [await fx.cluster('a'), await fx.cluster('b')];
      await a.client.create(configMap('default', 'in-a'));
      await b.client.create(configMap('default', 'in-b'));
      fx.file('fleet/a.kubeconfig', a.kubeconfig);
      await ensureNamespace(h.client, 'fleet-system');
      await h.client.create(kubeconfigSecret('fleet-system', 'b', b.kubeconfig));
      return {
        cwd: fx.dir,
        env: h.env,
        runsUntilSignalled: true,
        steps: [{ expect: [/files#\S*\/fleet\/a\.kubeconfig\+\S+: default\/in-a/, /secrets#b: default\/in-b/] }],
      };
    },
  },
  {
    readme: 'packages/provider-namespace/README.md',
    packages: ['core', 'provider-namespace'],
    async prepare(fx) {
      const h = await host(fx);
      await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { fleet: 'on' } } });
      await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
      await h.client.create(configMap('team-a', 'in-team-a'));
      await h.client.create(configMap('other', 'in-other'));
      return {
        cwd: fx.dir,
        env: h.env,
        runsUntilSignalled: true,
        steps: [
          { expect: [logLine({ msg: 'configmap changed', cluster: 'team-a', name: 'in-team-a' })] },
          {
            act: () => h.client.create(configMap('team-a', 'later')).then(() => undefined),
            expect: [logLine({ msg: 'configmap changed', cluster: 'team-a', name: 'later' })],
          },
        ],
        never: [/"cluster":"other"/], // not labelled fleet=on
      };
    },
  },
  {
    readme: 'packages/provider-gardener/README.md',
    packages: ['core', 'provider-gardener'],
    async prepare(fx) {
      const garden = await fx.garden('garden');
      const [alpha, sleepy] = [await fx.cluster('alpha'), await fx.cluster('sleepy')];
      await garden.server.fixtures.createShoot('dev', 'alpha', { server: alpha.server });
      await garden.server.fixtures.createShoot('dev', 'sleepy', { server: sleepy.server, hibernated: true });
      await garden.server.fixtures.createShoot('ops', 'other', { server: sleepy.server });
      await alpha.client.create(configMap('default', 'in-alpha'));
      await sleepy.client.create(configMap('default', 'in-sleepy'));
      return {
        cwd: fx.dir,
        env: { KUBECONFIG: fx.file('garden.kubeconfig', garden.kubeconfig) },
        runsUntilSignalled: true,
        steps: [
          { expect: [logLine({ msg: 'configmap changed', cluster: 'garden-dev/alpha', name: 'in-alpha' })] },
          {
            act: () => garden.server.fixtures.hibernate('dev', 'sleepy', false),
            expect: [logLine({ msg: 'configmap changed', cluster: 'garden-dev/sleepy', name: 'in-sleepy' })],
          },
        ],
        never: [/"cluster":"garden-ops\/other"/], // another project
      };
    },
  },
  {
    readme: 'packages/create-controller/README.md',
    packages: ['create-controller'],
    prepare(fx) {
      return Promise.resolve({
        cwd: fx.dir,
        env: {},
        runsUntilSignalled: false,
        steps: [{ expect: [/^1[0-9] files in \/\S+\/fleet-ctl$/m] }],
      });
    },
  },
  {
    readme: 'packages/provider-kind/README.md',
    packages: ['core', 'provider-kind'],
    async prepare(fx) {
      const h = await host(fx);
      const [dev, other] = [await fx.cluster('dev-a'), await fx.cluster('other')];
      await dev.client.create(configMap('default', 'in-dev'));
      await other.client.create(configMap('default', 'in-other'));
      const state = fx.file('kind-state.json', JSON.stringify({ clusters: { 'dev-a': dev.kubeconfig, other: other.kubeconfig } }));
      const fakeKind = join(repoRoot, 'tools/fake-kind/bin');
      return {
        cwd: fx.dir,
        runsUntilSignalled: true,
        env: { ...h.env, FAKE_KIND_STATE: state, PATH: `${fakeKind}:${process.env['PATH'] ?? ''}` },
        steps: [{ expect: [logLine({ msg: 'configmap changed', cluster: 'dev-a', name: 'in-dev' })] }],
        never: [/"cluster":"other"/], // namePrefix 'dev-' leaves it out
      };
    },
  },
  {
    readme: 'packages/provider-capi/README.md',
    packages: ['core', 'provider-capi'],
    async prepare(fx) {
      const management = await host(fx);
      const workload = await fx.cluster('prod-eu-1');
      await workload.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
      const c = management.client;
      await c.create({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'clusters.cluster.x-k8s.io' },
        spec: {
          group: 'cluster.x-k8s.io',
          scope: 'Namespaced',
          names: { kind: 'Cluster', plural: 'clusters', singular: 'cluster', listKind: 'ClusterList' },
          versions: [{ name: 'v1beta2', served: true, storage: true, schema: openSchema, subresources: { status: {} } }],
        },
      });
      await ensureNamespace(c, 'fleet');
      const cluster = await createWhenServed(() =>
        c.create({
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          metadata: { namespace: 'fleet', name: 'prod-eu-1' },
          spec: {},
        }),
      );
      await c.updateStatus({ ...cluster, status: { initialization: { controlPlaneInitialized: true } } });
      await c.create({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'cluster.x-k8s.io/secret',
        metadata: { namespace: 'fleet', name: 'prod-eu-1-kubeconfig', labels: { 'cluster.x-k8s.io/cluster-name': 'prod-eu-1' } },
        data: { value: Buffer.from(workload.kubeconfig).toString('base64') },
      });
      return {
        cwd: fx.dir,
        env: management.env,
        runsUntilSignalled: true,
        steps: [{ expect: [logLine({ msg: 'namespace changed', cluster: 'fleet/prod-eu-1', name: 'team-a' })] }],
      };
    },
  },
  {
    readme: 'packages/provider-cluster-inventory-api/README.md',
    packages: ['core', 'provider-cluster-inventory-api'],
    async prepare(fx) {
      const hub = await host(fx);
      const spoke = await fx.cluster('spoke-1');
      spoke.server.addToken('spoke-token', { username: 'inventory-consumer' });
      await spoke.client.create(configMap('default', 'in-spoke'));
      // The operator's credential plugin, as the README's access file names it (here: a script minting the token).
      const plugin = fx.file(
        'secretreader-plugin',
        `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"spoke-token"}}'\n`,
      );
      chmodSync(plugin, 0o755);
      const example = JSON.stringify({ providers: [{ name: 'secretreader', execConfig: { command: plugin, provideClusterInfo: true } }] });
      fx.file('clusterprofile-provider-file.json', example);
      const c = hub.client;
      await c.create({
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
      await ensureNamespace(c, 'fleet');
      const profile = await createWhenServed(() =>
        c.create({
          apiVersion: 'multicluster.x-k8s.io/v1alpha1',
          kind: 'ClusterProfile',
          metadata: { namespace: 'fleet', name: 'spoke-1' },
          spec: { clusterManager: { name: 'readme' } },
        }),
      );
      const healthy = {
        type: 'ControlPlaneHealthy',
        status: 'True',
        reason: 'Healthy',
        message: '',
        lastTransitionTime: '2026-11-26T10:00:00Z',
      };
      const cluster = { server: spoke.server.url, 'certificate-authority-data': Buffer.from(spoke.server.caPem).toString('base64') };
      await c.updateStatus({ ...profile, status: { conditions: [healthy], accessProviders: [{ name: 'secretreader', cluster }] } });
      return {
        cwd: fx.dir,
        env: hub.env,
        runsUntilSignalled: true,
        steps: [{ expect: [logLine({ msg: 'configmap changed', cluster: 'fleet/spoke-1', name: 'in-spoke' })] }],
      };
    },
  },
  {
    readme: 'packages/provider-milo/README.md',
    packages: ['core', 'provider-milo'],
    async prepare(fx) {
      const milo = await fx.milo('milo');
      await ensureNamespace(milo.client, 'milo-system'); // where the example's leader-election Lease lives
      await milo.server.fixtures.createProject('alpha', { ready: true });
      await milo.server.fixtures.createProject('beta'); // not ready: not engaged
      await milo.projectClient('alpha').create(configMap('default', 'in-alpha'));
      await milo.projectClient('beta').create(configMap('default', 'in-beta'));
      return {
        cwd: fx.dir,
        env: { KUBECONFIG: fx.file('milo.kubeconfig', milo.kubeconfig) },
        runsUntilSignalled: true,
        steps: [
          { expect: [logLine({ msg: 'config map changed', project: 'alpha', name: 'in-alpha' })] },
          {
            act: () => milo.server.fixtures.setProjectReady('beta', true),
            expect: [logLine({ msg: 'config map changed', project: 'beta', name: 'in-beta' })],
          },
        ],
      };
    },
  },
  {
    readme: 'packages/provider-kcp-apiexport/README.md',
    packages: ['core', 'provider-kcp-apiexport'],
    async prepare(fx) {
      const kcp = await fx.kcp();
      const downstream = await fx.cluster('downstream'); // the manager's own cluster
      const provider = await kcp.server.createWorkspace('root:mongodb');
      const [a, b] = [await kcp.server.createWorkspace('root:team-a'), await kcp.server.createWorkspace('root:team-b')];
      const mongoSchema = {
        metadata: { name: 'v1.mongodbcommunity.mongodbcommunity.mongodb.com' },
        spec: {
          group: 'mongodbcommunity.mongodb.com',
          scope: 'Namespaced',
          names: { kind: 'MongoDBCommunity', listKind: 'MongoDBCommunityList', plural: 'mongodbcommunity', singular: 'mongodbcommunity' },
          versions: [{ name: 'v1', served: true, storage: true, schema: openSchema }],
        },
      };
      await kcp.server.createExport(provider, { name: 'mongodb', schemas: [mongoSchema] });
      const db = (name: string) => ({
        apiVersion: 'mongodbcommunity.mongodb.com/v1',
        kind: 'MongoDBCommunity',
        metadata: { namespace: 'default', name },
      });
      await kcp.server.bind(a, { exportPath: 'root:mongodb', exportName: 'mongodb' });
      await createWhenServed(() => kcp.workspaceClient(a).create(db('orders')));
      fx.file('kcp.kubeconfig', kcp.server.kubeconfig(provider));
      fx.file('downstream.kubeconfig', downstream.kubeconfig);
      return {
        cwd: fx.dir,
        env: {},
        runsUntilSignalled: true,
        steps: [
          { expect: [logLine({ msg: 'mongodb changed', cluster: a.name, name: 'orders' })] },
          {
            // A workspace that binds the export later joins the fleet.
            act: async () => {
              await kcp.server.bind(b, { exportPath: 'root:mongodb', exportName: 'mongodb' });
              await createWhenServed(() => kcp.workspaceClient(b).create(db('billing')));
            },
            expect: [logLine({ msg: 'mongodb changed', cluster: b.name, name: 'billing' })],
          },
        ],
      };
    },
  },
  {
    readme: 'packages/webhook/README.md',
    packages: ['core', 'provider-kubeconfig', 'webhook'],
    async prepare(fx) {
      const h = await host(fx);
      const [a, b] = await Promise.all([fx.cluster('member-a'), fx.cluster('member-b')]);
      fx.file('fleet/a.kubeconfig', a.kubeconfig);
      fx.file('fleet/b.kubeconfig', b.kubeconfig);
      const tls = await servingCertificate();
      fx.file('certs/tls.crt', tls.certPem);
      fx.file('certs/tls.key', tls.keyPem);
      fx.file('certs/ca.crt', tls.caPem);
      const port = await freePort();
      return {
        cwd: fx.dir,
        env: { ...h.env, WEBHOOK_PORT: String(port), WEBHOOK_URL: `https://127.0.0.1:${port}` },
        runsUntilSignalled: true,
        steps: [
          { expect: [logLine({ msg: 'webhook server listening' })] },
          {
            // Each member got its configurations; a forbidden key is refused in member A, member B defaults `owner`.
            act: async () => {
              const kind = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };
              for (const m of [a, b]) await until(() => m.client.get(kind, { name: 'configmaps.example.com' }));
              const refused = await a.client.create(configMap('default', 'bad', { forbidden: 'x' })).then(
                () => 'created',
                (err: unknown) => String(err),
              );
              if (!/denied the request: "forbidden" is not allowed in .*fleet\/a\.kubeconfig/.test(refused))
                throw new Error(`member A should refuse the ConfigMap, got: ${refused}`);
              const made = (await b.client.create(configMap('default', 'good', { size: 's' }))) as { data?: Record<string, string> };
              if (made.data?.['owner'] !== 'platform') throw new Error(`member B should default owner, got ${JSON.stringify(made.data)}`);
            },
            expect: [logLine({ msg: 'webhook server listening' })],
          },
        ],
      };
    },
  },
  {
    readme: 'README.md',
    packages: ['core', 'provider-kubeconfig'],
    async prepare(fx) {
      const h = await host(fx);
      const member = await fx.cluster('member');
      await member.client.create(configMap('default', 'settings', { color: 'blue', size: 'xl' }));
      fx.file('fleet/member.kubeconfig', member.kubeconfig);
      return {
        cwd: fx.dir,
        env: h.env,
        runsUntilSignalled: true,
        steps: [{ expect: [logLine({ msg: 'reconciled', cluster: 'fleet/member.kubeconfig', keys: ['color', 'size'] })] }],
      };
    },
  },
];

/**
 * A JSON log line (core's default sink) holding every given field, in any order. A string value of `cluster` may
 * be any part of the name (file clusters are named after absolute paths).
 */
function logLine(fields: Record<string, unknown>): RegExp {
  const parts = Object.entries(fields).map(([k, v]) => {
    const value = JSON.stringify(v);
    const pattern = k === 'cluster' && typeof v === 'string' ? `"[^"]*${escape(v)}[^"]*"` : escape(value);
    return `(?=[^\\n]*"${escape(k)}":${pattern})`;
  });
  return new RegExp(`^${parts.join('')}.*$`, 'm');
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A CRD's resource is served a moment after the CRD is created (Established); retry the first create until then. */
function createWhenServed<T>(create: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  return until(create, timeoutMs);
}
