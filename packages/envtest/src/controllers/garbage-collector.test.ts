import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';

const path = (name?: string) => `/api/v1/namespaces/default/configmaps${name ? `/${name}` : ''}`;

async function owner(client: KubeHttpClient, name: string): Promise<{ apiVersion: string; kind: string; name: string; uid: string }> {
  const res = await client.post(path(), { metadata: { name } });
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: res.body.metadata.uid };
}

async function dependent(client: KubeHttpClient, name: string, owners: object[], finalizers?: string[]): Promise<void> {
  expect((await client.post(path(), { metadata: { name, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) } })).status).toBe(
    201,
  );
}

const status = async (client: KubeHttpClient, name: string) => (await client.get(path(name))).status;

describe('garbage collector (opt-in)', () => {
  let server: ApiServer;
  let client: KubeHttpClient;
  beforeAll(async () => {
    server = await startApiServer({ garbageCollector: true });
    client = new KubeHttpClient(server.kubeconfig());
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  test('background: dependents go with their only owner; a dependent with another live owner only loses the reference', async () => {
    const a = await owner(client, 'bg-a');
    const b = await owner(client, 'bg-b');
    await dependent(client, 'bg-only-a', [a]);
    await dependent(client, 'bg-a-and-b', [a, b]);
    await client.delete(path('bg-a'));
    await expect.poll(() => status(client, 'bg-only-a')).toBe(404);
    await expect.poll(async () => (await client.get(path('bg-a-and-b'))).body.metadata.ownerReferences).toEqual([b]);
  });

  test('foreground: the owner waits (foregroundDeletion) until its dependents are gone', async () => {
    const o = await owner(client, 'fg');
    await dependent(client, 'fg-dep', [o], ['example.com/hold']);
    await client.delete(path('fg'), { propagationPolicy: 'Foreground' });
    await expect.poll(async () => (await client.get(path('fg-dep'))).body.metadata.deletionTimestamp).toBeDefined();
    expect((await client.get(path('fg'))).body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await client.patch(path('fg-dep'), 'application/merge-patch+json', { metadata: { finalizers: null } });
    await expect.poll(() => status(client, 'fg')).toBe(404);
  });

  test('orphan: dependents stay, without the reference; the owner goes', async () => {
    const o = await owner(client, 'or');
    await dependent(client, 'or-dep', [o]);
    await client.delete(path('or'), { propagationPolicy: 'Orphan' });
    await expect.poll(() => status(client, 'or')).toBe(404);
    const dep = await client.get(path('or-dep'));
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });
});

describe('without the garbage collector (the default, like envtest)', () => {
  test('dependents stay and a foreground delete stays pending', async () => {
    const server = await startApiServer();
    const client = new KubeHttpClient(server.kubeconfig());
    try {
      const o = await owner(client, 'own');
      await dependent(client, 'dep', [o]);
      await client.delete(path('own'));
      expect(await status(client, 'dep')).toBe(200);
      await owner(client, 'fg');
      await client.delete(path('fg'), { propagationPolicy: 'Foreground' });
      expect((await client.get(path('fg'))).body.metadata.finalizers).toEqual(['foregroundDeletion']);
      // Several round trips later, nothing has collected the dependent either.
      expect(await status(client, 'dep')).toBe(200);
    } finally {
      client.close();
      await server.close();
    }
  });
});
