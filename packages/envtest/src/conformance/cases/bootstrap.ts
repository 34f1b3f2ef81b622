/**
 * What a fresh server holds besides namespaces, the `kubernetes` Service and the system PriorityClasses: the API
 * Priority and Fairness configuration, the default ServiceCIDR, and the kube-system ConfigMaps and identity Lease (the
 * RBAC bootstrap policy too, but a real server writes it only under RBAC authorization, and this suite's runs
 * AlwaysAllow; api-server.test.ts has it). And two rules of the kinds involved that controllers meet: RBAC names are
 * path segments (so `system:` names are valid), and the kinds whose Go strategy allows it create on update (a PUT to
 * a missing Role or Service creates it).
 */
import { hostname } from 'node:os';
import { expect, test, vi } from 'vitest';
import { apiServerId } from '../../server/seed.js';
import type { SuiteContext } from '../context.js';
import { expectStatus } from './helpers.js';

/** The CA certificate a kubeconfig trusts, as PEM. */
function kubeconfigCa(kubeconfig: string): string {
  const data = /certificate-authority-data:\s*(\S+)/.exec(kubeconfig)?.[1];
  expect(data, 'the kubeconfig carries its CA').toBeDefined();
  return Buffer.from(data!, 'base64').toString('utf8');
}

const rbac = '/apis/rbac.authorization.k8s.io/v1';

/**
 * The object at `path` once it is there: the real server writes these from post-start hooks and controllers, so a
 * server that has just started may not have them yet.
 */
function eventually(ctx: SuiteContext, path: string): Promise<any> {
  return vi.waitFor(
    async () => {
      const res = await ctx.client.get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      return res.body;
    },
    { timeout: 30_000, interval: 200 },
  );
}

export function bootstrapCases(ctx: SuiteContext): void {
  test('bootstrap: the APF configuration and the default ServiceCIDR are there from the start', async () => {
    const get = (path: string) => eventually(ctx, path);
    expect(await get('/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/exempt')).toMatchObject({
      spec: { type: 'Exempt' },
    });
    expect(await get('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt')).toMatchObject({
      metadata: { generation: 1 },
      spec: { matchingPrecedence: 1, priorityLevelConfiguration: { name: 'exempt' } },
    });
    expect(await get('/apis/networking.k8s.io/v1/servicecidrs/kubernetes')).toMatchObject({
      spec: { cidrs: ['10.0.0.0/24'] },
      status: { conditions: [{ type: 'Ready', status: 'True', message: 'Kubernetes default Service CIDR is ready' }] },
    });
  });

  test("bootstrap: kube-system holds the client CA, the token-tracking date and the server's identity Lease", async () => {
    const get = (path: string) => eventually(ctx, path);
    const authentication = await get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    expect(Object.keys(authentication.data)).toContain('client-ca-file');
    expect(authentication.data['client-ca-file'].trim()).toBe(kubeconfigCa(ctx.backend.kubeconfig).trim());
    const tracking = await get('/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking');
    expect(tracking.data).toEqual({ since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });

    const id = apiServerId(hostname());
    const lease = await get(`/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${id}`);
    expect(lease.metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': hostname() });
    expect(lease.metadata.annotations).toEqual({ 'kubernetes.io/peer-advertise-address': expect.stringMatching(/:\d+$/) });
    expect(lease.spec).toEqual({
      holderIdentity: expect.stringMatching(new RegExp(`^${id}_[0-9a-f-]{36}$`)),
      leaseDurationSeconds: 3600,
      renewTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
  });

  test('RBAC: role and binding names are path segments, so `system:` names are valid and `%` or `..` are not', async () => {
    const ns = await ctx.namespace();
    const role = (name: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [] });
    const created = await ctx.client.post(`${rbac}/namespaces/${ns}/roles`, role('system:conformance:reader'));
    expect(created.status, created.text).toBe(201);
    expectStatus(
      await ctx.client.post(`${rbac}/namespaces/${ns}/roles`, role('a%b')),
      422,
      'Invalid',
      `Role.rbac.authorization.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`,
    );
    expectStatus(
      await ctx.client.post(`${rbac}/namespaces/${ns}/roles`, role('..')),
      422,
      'Invalid',
      `Role.rbac.authorization.k8s.io ".." is invalid: metadata.name: Invalid value: "..": may not be '..'`,
    );
    // Other kinds keep the DNS subdomain rule.
    expectStatus(
      await ctx.client.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'system:x' } }),
      422,
      'Invalid',
      /^ConfigMap "system:x" is invalid: metadata.name: Invalid value: "system:x": a lowercase RFC 1123 subdomain/,
    );
  });

  test('create on update: a PUT to a missing Role or Service creates it; to a missing ConfigMap it is 404', async () => {
    const ns = await ctx.namespace();
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'put-made', namespace: ns }, rules: [] };
    const putRole = await ctx.client.put(`${rbac}/namespaces/${ns}/roles/put-made`, role);
    expect(putRole.status, putRole.text).toBe(201);
    expect(putRole.body.metadata.uid).toEqual(expect.any(String));
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'put-made', namespace: ns }, spec: { ports: [{ port: 80 }] } };
    const putService = await ctx.client.put(`/api/v1/namespaces/${ns}/services/put-made`, service);
    expect(putService.status, putService.text).toBe(201);
    expect(putService.body.spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'put-made', namespace: ns } };
    expectStatus(
      await ctx.client.put(`/api/v1/namespaces/${ns}/configmaps/put-made`, cm),
      404,
      'NotFound',
      'configmaps "put-made" not found',
    );
  });
}
