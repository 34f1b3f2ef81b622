/** Authentication: client certificates, bearer tokens, and 401 for bad credentials. */
import { expect, test } from 'vitest';
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
