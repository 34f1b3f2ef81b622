/** /version, /api, /apis, group-version resource lists, /openapi/v2, health and the 404 page. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';

export function discoveryCases(ctx: SuiteContext): void {
  test('discovery: /version describes the server', async () => {
    const res = await ctx.client.get('/version');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ major: expect.any(String), minor: expect.any(String), gitVersion: expect.stringMatching(/^v1\./) });
  });

  test('discovery: /api lists v1 as APIVersions', async () => {
    const res = await ctx.client.get('/api');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
  });

  test('discovery: /apis lists groups whose preferredVersion equals one of their versions', async () => {
    const res = await ctx.client.get('/apis');
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('APIGroupList');
    const names = res.body.groups.map((g: any) => g.name);
    expect(names).toEqual(expect.arrayContaining(['apiextensions.k8s.io', 'coordination.k8s.io', 'events.k8s.io']));
    for (const g of res.body.groups) expect(g.versions).toContainEqual(g.preferredVersion);
  });

  test('discovery: every group version listed answers with its resources', async () => {
    const groups = (await ctx.client.get('/apis')).body.groups as { versions: { groupVersion: string }[] }[];
    for (const gv of groups.flatMap((g) => g.versions)) {
      const res = await ctx.client.get(`/apis/${gv.groupVersion}`);
      expect(res.status, gv.groupVersion).toBe(200);
      expect(res.body).toMatchObject({ kind: 'APIResourceList', groupVersion: gv.groupVersion });
    }
  });

  test('discovery: /api/v1 lists core resources with scope, verbs and subresources', async () => {
    const res = await ctx.client.get('/api/v1');
    expect(res.status).toBe(200);
    const byName = new Map((res.body.resources as any[]).map((r) => [r.name, r]));
    expect(byName.get('configmaps')).toMatchObject({
      namespaced: true,
      kind: 'ConfigMap',
      verbs: expect.arrayContaining(['create', 'get', 'list', 'watch', 'patch', 'update', 'delete']),
    });
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace' });
    expect(byName.get('namespaces/status')).toMatchObject({ kind: 'Namespace' });
    expect(byName.get('secrets')).toMatchObject({ namespaced: true, kind: 'Secret' });
  });

  test('discovery: /openapi/v2 answers with the exact protobuf media type kubectl accepts', async () => {
    const res = await ctx.client.request('GET', '/openapi/v2', {
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });

  test('discovery: health endpoints answer ok', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await ctx.client.get(path);
      expect(res.status, path).toBe(200);
      expect(res.text).toBe('ok');
    }
  });

  test('discovery: an unknown path outside the API roots or groups is the plain-text 404 page', async () => {
    for (const path of ['/nope', '/apis/nope.example.com', '/apis/nope.example.com/v1']) {
      const res = await ctx.client.get(path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).toBe('404 page not found\n');
    }
  });

  test('discovery: an unknown version or resource under /api or a served group is a NotFound Status', async () => {
    for (const path of [
      '/api/v2',
      '/api/v1/widgets',
      '/api/v1/namespaces/default/widgets',
      '/apis/coordination.k8s.io/v9',
      '/apis/coordination.k8s.io/v1/nope',
    ]) {
      const res = await ctx.client.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      });
    }
  });
}
