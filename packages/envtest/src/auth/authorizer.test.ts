import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../index.js';
import { startApiServer } from '../index.js';
import type { AuthorizationAttributes } from './authorizer.js';

describe('authorization', () => {
  let server: ApiServer;
  let admin: KubeHttpClient;
  let alice: KubeHttpClient;
  const seen: AuthorizationAttributes[] = [];
  beforeAll(async () => {
    server = await startApiServer({
      tokens: { 'alice-token': 'alice' },
      authorizer: (a) => {
        seen.push(a);
        return a.user.name !== 'alice' || (a.resource === 'configmaps' && a.verb === 'watch');
      },
    });
    admin = new KubeHttpClient(server.kubeconfig());
    alice = new KubeHttpClient(server.kubeconfig({ user: { token: 'alice-token' } }));
  });
  afterAll(async () => {
    admin.close();
    alice.close();
    await server.close();
  });

  test("a denied request is 403 with kube-apiserver's message; the admin certificate user is allowed", async () => {
    expect((await admin.get('/api/v1/namespaces/default/configmaps')).status).toBe(200);
    const get = await alice.get('/api/v1/namespaces/default/configmaps/x');
    expect(get.status).toBe(403);
    expect(get.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'configmaps "x" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"',
      details: { name: 'x', kind: 'configmaps' },
    });
    const list = await alice.get('/apis/coordination.k8s.io/v1/leases');
    expect(list.body.message).toBe(
      'leases.coordination.k8s.io is forbidden: User "alice" cannot list resource "leases" in API group "coordination.k8s.io" at the cluster scope',
    );
    const status = await alice.put('/api/v1/namespaces/default/status', {});
    expect(status.body.message).toBe(
      'namespaces "default" is forbidden: User "alice" cannot update resource "namespaces/status" in API group "" at the cluster scope',
    );
  });

  test('the authorizer sees user, groups and request attributes', async () => {
    const w = await alice.watch('/api/v1/namespaces/default/configmaps', { resourceVersion: '1', timeoutSeconds: 1 });
    expect(w.status).toBe(200);
    await w.waitForEnd(5000);
    expect(seen.at(-1)).toMatchObject({
      user: { name: 'alice', groups: ['system:authenticated'] },
      verb: 'watch',
      group: '',
      resource: 'configmaps',
      namespace: 'default',
      cluster: '',
    });
    const adminSeen = seen.find((a) => a.user.name === 'admin');
    expect(adminSeen?.user.groups).toEqual(['system:masters', 'system:authenticated']);
  });

  test('impersonation: allowed impersonators act as the impersonated user; others get 403', async () => {
    server.setAuthorizer((a) => (a.verb === 'impersonate' ? a.user.name === 'admin' : a.user.name !== 'carol'));
    const asCarol = await admin.request('GET', '/api/v1/namespaces/default', { headers: { 'Impersonate-User': 'carol' } });
    expect(asCarol.status).toBe(403);
    expect(asCarol.body.message).toContain('User "carol" cannot get resource "namespaces"');
    expect(
      (await admin.request('GET', '/api/v1/namespaces/default', { headers: { 'Impersonate-User': 'dave', 'Impersonate-Group': 'team' } }))
        .status,
    ).toBe(200);
    const aliceAsCarol = await alice.request('GET', '/api/v1/namespaces/default', { headers: { 'Impersonate-User': 'dave' } });
    expect(aliceAsCarol.status).toBe(403);
    expect(aliceAsCarol.body.message).toBe(
      'users "dave" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  test('setAuthorizer(undefined) allows everything again', async () => {
    server.setAuthorizer(undefined);
    expect((await alice.get('/api/v1/namespaces/default')).status).toBe(200);
  });
});
