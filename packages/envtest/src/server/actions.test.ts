import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import type { ActionRequest, ActionSubresource } from './options.js';

/** `configmaps/echo`: answers with what was posted, the ConfigMap's data and the caller; `refuse: true` answers 422. */
const seen: ActionRequest[] = [];
const echo: ActionSubresource = {
  group: '',
  resource: 'configmaps',
  subresource: 'echo',
  kind: 'EchoRequest',
  create(request) {
    seen.push(request);
    if (request.body['refuse'] === true) return { failure: { code: 422, reason: 'Invalid', message: 'refused on request' } };
    if (request.body['crash'] === true) throw new Error('the action broke');
    return { object: { apiVersion: 'v1', kind: 'EchoRequest', spec: request.body['spec'], status: { data: request.object['data'] } } };
  },
};

describe('action subresources', () => {
  let server: ApiServer;
  let admin: KubeHttpClient;
  beforeAll(async () => {
    server = await startApiServer({ actions: [echo] });
    admin = new KubeHttpClient(server.kubeconfig());
    expect((await admin.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm' }, data: { a: '1' } })).status).toBe(201);
  });
  afterAll(async () => {
    admin.close();
    await server.close();
  });

  test('a POST is answered by the action with the object it belongs to, and nothing is stored', async () => {
    const res = await admin.post('/api/v1/namespaces/default/configmaps/cm/echo', { kind: 'EchoRequest', spec: { x: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ apiVersion: 'v1', kind: 'EchoRequest', spec: { x: 1 }, status: { data: { a: '1' } } });
    const request = seen.at(-1)!;
    expect(request.user.name).toBe('admin');
    expect(request.cluster).toBe('');
    expect((request.object['metadata'] as Record<string, unknown>)['name']).toBe('cm');
    expect((await admin.get('/api/v1/namespaces/default/configmaps/cm')).body.data).toEqual({ a: '1' });
  });

  test('discovery lists it with verb create and its own kind', async () => {
    const list = await admin.get('/api/v1');
    const entry = list.body.resources.find((r: { name: string }) => r.name === 'configmaps/echo');
    expect(entry).toMatchObject({ kind: 'EchoRequest', verbs: ['create'], namespaced: true });
  });

  test('a missing object is 404, another verb 405, a failure its Status, a throw 500', async () => {
    expect((await admin.post('/api/v1/namespaces/default/configmaps/nope/echo', {})).status).toBe(404);
    expect((await admin.get('/api/v1/namespaces/default/configmaps/cm/echo')).status).toBe(405);
    const refused = await admin.post('/api/v1/namespaces/default/configmaps/cm/echo', { refuse: true });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Invalid', message: 'refused on request' });
    const crashed = await admin.post('/api/v1/namespaces/default/configmaps/cm/echo', { crash: true });
    expect(crashed.status).toBe(500);
    expect(crashed.body.message).toMatch(/the action broke/);
    expect((await admin.post('/api/v1/namespaces/default/configmaps/cm/other', {})).status).toBe(404);
  });

  test('the authorizer decides create on the subresource', async () => {
    server.setAuthorizer((a) => !(a.subresource === 'echo' && a.verb === 'create'));
    try {
      const res = await admin.post('/api/v1/namespaces/default/configmaps/cm/echo', {});
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/configmaps\/echo/);
    } finally {
      server.setAuthorizer(undefined);
    }
  });

  test('bad actions are refused at start', async () => {
    await expect(startApiServer({ actions: [{ ...echo, create: undefined as never }] })).rejects.toThrow(/create function/);
    await expect(startApiServer({ actions: [echo, echo] })).rejects.toThrow(/given twice/);
  });
});
