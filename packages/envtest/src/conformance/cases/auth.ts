/** Authentication: client certificates, bearer tokens, and 401 for bad credentials. */
import { expect, test, vi } from 'vitest';
import type { SuiteContext } from '../context.js';
import { KubeHttpClient } from '../http-client.js';
import { expectStatus } from './helpers.js';

export function authCases(ctx: SuiteContext): void {
  test('auth: the admin kubeconfig is accepted', async () => {
    const res = await ctx.client.get('/api/v1/namespaces/default');
    expect(res.status).toBe(200);
  });

  test('auth: an unknown bearer token gets 401 Unauthorized', async () => {
    const client = new KubeHttpClient(ctx.backend.kubeconfig, { token: 'not-a-real-token' });
    try {
      const res = await client.get('/api/v1/namespaces');
      expectStatus(res, 401, 'Unauthorized', 'Unauthorized');
    } finally {
      client.close();
    }
  });

  test('auth: no credentials at all is refused (401, or 403 for anonymous)', async () => {
    const client = new KubeHttpClient(ctx.backend.kubeconfig, { noCredentials: true });
    try {
      const res = await client.get('/api/v1/namespaces');
      expect([401, 403]).toContain(res.status);
      expect(res.body.kind).toBe('Status');
    } finally {
      client.close();
    }
  });

  test('auth: a registered bearer token is accepted', async (t) => {
    if (!ctx.backend.addToken) return t.skip('backend cannot register tokens');
    const token = `tok-${ctx.unique('alice')}`;
    ctx.backend.addToken(token, 'alice');
    const client = new KubeHttpClient(ctx.backend.kubeconfig, { token });
    try {
      const res = await client.get('/api/v1/namespaces/default');
      expect(res.status).toBe(200);
      expect(res.body.metadata.name).toBe('default');
    } finally {
      client.close();
    }
  });

  test('auth: a token added with expiresAt is refused once that instant has passed', async (t) => {
    if (!ctx.backend.addToken) return t.skip('backend cannot register tokens');
    const token = `tok-${ctx.unique('frank')}`;
    const expiresAt = new Date(Date.now() + 1_500);
    ctx.backend.addToken(token, 'frank', { expiresAt });
    const client = new KubeHttpClient(ctx.backend.kubeconfig, { token });
    try {
      expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
      // Refused once expired: at once in memory; kube-apiserver keeps a successful authentication for 10 s.
      await vi.waitUntil(() => Date.now() > expiresAt.getTime(), { timeout: 5_000, interval: 50 });
      await expect.poll(async () => (await client.get('/api/v1/namespaces/default')).status, { timeout: 15_000, interval: 250 }).toBe(401);
      expect((await client.get('/api/v1/namespaces/default')).body.kind).toBe('Status');
    } finally {
      client.close();
    }
    expect(() => ctx.backend.addToken!(`tok-${ctx.unique('gina')}`, 'gina', { expiresAt: new Date(Number.NaN) })).toThrow(/expiresAt/);
  });

  test('auth: serviceaccounts/token mints a token that authenticates as the ServiceAccount; under 10 minutes is 422', async () => {
    const ns = await ctx.namespace('token');
    expect((await ctx.client.post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'robot' } })).status).toBe(201);
    const path = `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`;
    const res = await ctx.client.post(path, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } });
    const expires = Date.parse(res.body.status.expirationTimestamp);
    expect(expires - Date.now()).toBeGreaterThan(590_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(601_000);
    const robot = new KubeHttpClient(ctx.backend.kubeconfig, { token: res.body.status.token });
    try {
      // Authenticated: allowed where nothing authorizes (in memory), else refused by name (RBAC on the real tier).
      const read = await robot.get(`/api/v1/namespaces/${ns}/serviceaccounts/robot`);
      expect([200, 403]).toContain(read.status);
      if (read.status === 403) expect(read.body.message).toContain(`"system:serviceaccount:${ns}:robot"`);
    } finally {
      robot.close();
    }
    const short = await ctx.client.post(path, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 60 },
    });
    expect(short.status).toBe(422);
    expect(short.body.message).toMatch(/may not specify a duration less than 10 minutes/);
    expect((await ctx.client.post(`/api/v1/namespaces/${ns}/serviceaccounts/nobody/token`, { spec: {} })).status).toBe(404);
  });

  test('auth: addToken takes one shape on every tier ({ username, groups }), and refuses { name } saying so', async (t) => {
    if (!ctx.backend.addToken) return t.skip('backend cannot register tokens');
    const token = `tok-${ctx.unique('carol')}`;
    ctx.backend.addToken(token, { username: 'carol', groups: ['dev'] });
    const client = new KubeHttpClient(ctx.backend.kubeconfig, { token });
    try {
      expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
    } finally {
      client.close();
    }
    expect(() => ctx.backend.addToken!(`tok-${ctx.unique('dave')}`, { name: 'dave' })).toThrow(
      /needs a non-empty `username`.*it has `name`/,
    );
    expect(() => ctx.backend.addToken!('has space', 'eve')).toThrow(/without whitespace/);
  });
}
