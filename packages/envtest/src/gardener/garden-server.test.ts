import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { parse } from 'yaml';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import { startGardenServer, type GardenServer } from './garden-server.js';

const shootPath = (project: string, name: string) => `/apis/core.gardener.cloud/v1beta1/namespaces/garden-${project}/shoots/${name}`;

function tokenOf(kubeconfig: string): string {
  return (parse(kubeconfig) as { users: { user: { token: string } }[] }).users[0]!.user.token;
}

describe('fake garden', () => {
  let garden: GardenServer;
  let member: ApiServer;
  let admin: KubeHttpClient;
  beforeAll(async () => {
    [garden, member] = await Promise.all([startGardenServer({ minExpirationSeconds: 1 }), startApiServer()]);
    admin = new KubeHttpClient(garden.kubeconfig());
  });
  afterAll(async () => {
    admin.close();
    await Promise.all([garden.close(), member.close()]);
  });

  test('a shoot is created in its project namespace, reconciled, with its technical ID and address', async () => {
    await garden.fixtures.createShoot('dev', 'alpha', { server: member });
    const shoot = (await admin.get(shootPath('dev', 'alpha'))).body;
    expect(shoot.status).toMatchObject({
      technicalID: 'shoot--dev--alpha',
      lastOperation: { type: 'Reconcile', state: 'Succeeded' },
      advertisedAddresses: [{ name: 'external', url: member.url }],
    });
    await garden.fixtures.hibernate('dev', 'alpha', true);
    const hibernated = (await admin.get(shootPath('dev', 'alpha'))).body;
    expect(hibernated.spec.hibernation).toEqual({ enabled: true });
    expect(hibernated.status.isHibernated).toBe(true);
    await garden.fixtures.hibernate('dev', 'alpha', false);
  });

  test('adminkubeconfig issues a kubeconfig for the backing server that stops working when it expires', async () => {
    await garden.fixtures.createShoot('dev', 'beta', { server: member });
    const before = garden.kubeconfigsIssued();
    const res = await admin.post(`${shootPath('dev', 'beta')}/adminkubeconfig`, {
      apiVersion: 'authentication.gardener.cloud/v1alpha1',
      kind: 'AdminKubeconfigRequest',
      spec: { expirationSeconds: 2 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'AdminKubeconfigRequest', spec: { expirationSeconds: 2 } });
    expect(garden.kubeconfigsIssued()).toBe(before + 1);
    const kubeconfig = Buffer.from(res.body.status.kubeconfig, 'base64').toString('utf8');
    const doc = parse(kubeconfig) as { 'current-context': string; clusters: { cluster: { server: string } }[] };
    expect(doc['current-context']).toBe('dev--beta-external');
    expect(doc.clusters[0]!.cluster.server).toBe(member.url);
    const expiresAt = Date.parse(res.body.status.expirationTimestamp);
    const shootClient = new KubeHttpClient(kubeconfig);
    try {
      expect((await shootClient.get('/api/v1/namespaces/default')).status).toBe(200);
      await vi.waitUntil(() => Date.now() > expiresAt, { timeout: 5_000, interval: 50 });
      expect((await shootClient.get('/api/v1/namespaces/default')).status).toBe(401);
    } finally {
      shootClient.close();
    }
  });

  test('viewerkubeconfig too; discovery lists both with verb create', async () => {
    await garden.fixtures.createShoot('dev', 'gamma', { server: member });
    const res = await admin.post(`${shootPath('dev', 'gamma')}/viewerkubeconfig`, { spec: { expirationSeconds: 600 } });
    expect(res.status).toBe(201);
    expect(res.body.kind).toBe('ViewerKubeconfigRequest');
    expect(tokenOf(Buffer.from(res.body.status.kubeconfig, 'base64').toString('utf8'))).toMatch(/^[\w-]{40,}$/);
    const resources = (await admin.get('/apis/core.gardener.cloud/v1beta1')).body.resources as {
      name: string;
      verbs: string[];
      kind: string;
    }[];
    expect(resources.filter((r) => r.name.startsWith('shoots/')).map((r) => [r.name, r.kind, r.verbs])).toEqual([
      ['shoots/status', 'Shoot', ['get', 'patch', 'update']],
      ['shoots/adminkubeconfig', 'AdminKubeconfigRequest', ['create']],
      ['shoots/viewerkubeconfig', 'ViewerKubeconfigRequest', ['create']],
    ]);
  });

  test('bad lifetimes are 422, a shoot without an API server 400, a missing shoot 404, a set failure its status', async () => {
    await garden.fixtures.createShoot('dev', 'delta', { server: member });
    const strict = await startGardenServer();
    try {
      await strict.fixtures.createShoot('dev', 'delta', { server: member });
      const strictAdmin = new KubeHttpClient(strict.kubeconfig());
      try {
        const short = await strictAdmin.post(`${shootPath('dev', 'delta')}/adminkubeconfig`, { spec: { expirationSeconds: 599 } });
        expect(short.status).toBe(422);
        expect(short.body.message).toMatch(/less than 600 seconds/);
      } finally {
        strictAdmin.close();
      }
    } finally {
      await strict.close();
    }
    expect((await admin.post(`${shootPath('dev', 'delta')}/adminkubeconfig`, { spec: { expirationSeconds: 90_000 } })).status).toBe(422);
    expect((await admin.post(`${shootPath('dev', 'delta')}/adminkubeconfig`, { spec: { expirationSeconds: 'soon' } })).status).toBe(422);
    await garden.fixtures.createShoot('dev', 'unplaced', { lastOperation: { type: 'Create', state: 'Processing' } });
    const unplaced = await admin.post(`${shootPath('dev', 'unplaced')}/adminkubeconfig`, {});
    expect(unplaced.status).toBe(400);
    expect(unplaced.body.message).toMatch(/advertised addresses/);
    expect((await admin.post(`${shootPath('dev', 'nope')}/adminkubeconfig`, {})).status).toBe(404);
    garden.failKubeconfigRequests({ code: 503, reason: 'ServiceUnavailable', message: 'the garden is busy' });
    try {
      const busy = await admin.post(`${shootPath('dev', 'delta')}/adminkubeconfig`, {});
      expect(busy.status).toBe(503);
      expect(busy.body.message).toBe('the garden is busy');
      expect(garden.kubeconfigRequestsFailed()).toBe(1);
    } finally {
      garden.failKubeconfigRequests(undefined);
    }
  });

  test('tampered kubeconfigs are what the garden hands out until the tamper is removed', async () => {
    await garden.fixtures.createShoot('dev', 'epsilon', { server: member });
    garden.tamperKubeconfigs((text, shoot) => `# tampered ${shoot.namespace}/${shoot.name}\n${text}`);
    try {
      const res = await admin.post(`${shootPath('dev', 'epsilon')}/adminkubeconfig`, {});
      expect(Buffer.from(res.body.status.kubeconfig, 'base64').toString('utf8')).toMatch(/^# tampered garden-dev\/epsilon\n/);
    } finally {
      garden.tamperKubeconfigs(undefined);
    }
  });

  test('seed topology: the extensions Cluster and its gardener Secret, whose token renewal replaces the old one', async () => {
    const id = await garden.fixtures.createSeedCluster('dev', 'zeta', member, { expirationSeconds: 600 });
    expect(id).toBe('shoot--dev--zeta');
    expect((await admin.get(`/apis/extensions.gardener.cloud/v1alpha1/clusters/${id}`)).status).toBe(200);
    const secret = (await admin.get(`/api/v1/namespaces/${id}/secrets/gardener`)).body;
    expect(Date.parse(secret.metadata.annotations['serviceaccount.resources.gardener.cloud/token-renew-timestamp'])).toBeGreaterThan(
      Date.now(),
    );
    const first = Buffer.from(secret.data.kubeconfig, 'base64').toString('utf8');
    await garden.fixtures.renewSeedToken(id, member);
    const renewed = Buffer.from((await admin.get(`/api/v1/namespaces/${id}/secrets/gardener`)).body.data.kubeconfig, 'base64').toString(
      'utf8',
    );
    expect(tokenOf(renewed)).not.toBe(tokenOf(first));
    for (const text of [first, renewed]) {
      const client = new KubeHttpClient(text);
      try {
        expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
      } finally {
        client.close();
      }
    }
  });
});
