/**
 * Workspace initialization in the fake kcp: a WorkspaceType with an initializer publishes initializingworkspaces URLs,
 * its workspaces wait in Initializing, show in that virtual workspace until the initializer removes itself, and are
 * Ready after.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { KcpServer } from './kcp-server.js';
import { startKcpServer } from './kcp-server.js';
import type { Workspace } from './workspaces.js';

const LC = '/apis/core.kcp.io/v1alpha1/logicalclusters';

describe('fake kcp: workspace types and initializing workspaces', () => {
  let kcp: KcpServer;
  let http: KubeHttpClient;
  let types: Workspace;
  beforeAll(async () => {
    kcp = await startKcpServer({ shards: ['one', 'two'] });
    http = new KubeHttpClient(kcp.kubeconfig());
    types = await kcp.createWorkspace('root:types');
    await kcp.createWorkspaceType(types, { name: 'initialized', initializer: true });
    await kcp.createWorkspaceType(types, { name: 'plain' });
  });
  afterAll(async () => {
    http.close();
    await kcp.close();
  });

  const vw = (shard: string, cluster: string) =>
    `${kcp.initializingUrl(shard, types, 'initialized').slice(kcp.url.length)}/clusters/${cluster}`;
  const logicalCluster = async (ws: Workspace) => (await http.get(`/clusters/${ws.name}${LC}/cluster`)).body;

  test('the type publishes one initializingworkspaces URL per shard; a plain type none', async () => {
    const status = async (name: string) =>
      (await http.get(`/clusters/${types.name}/apis/tenancy.kcp.io/v1alpha1/workspacetypes/${name}`)).body.status;
    await expect
      .poll(async () => (await status('initialized'))?.virtualWorkspaces)
      .toEqual(['one', 'two'].map((s) => ({ url: kcp.initializingUrl(s, types, 'initialized') })));
    expect((await status('plain'))?.virtualWorkspaces ?? []).toEqual([]);
    expect(kcp.initializingUrl('one', types, 'initialized')).toBe(
      `${kcp.url}/shards/one/services/initializingworkspaces/${types.name}%3Ainitialized`,
    );
    await expect(kcp.createWorkspace('root:nope', { type: { path: 'root:types', name: 'missing' } })).rejects.toThrow(/no WorkspaceType/);
  });

  test('a workspace of the type waits for its initializer, shows in its shard virtual workspace, and is Ready once it removes itself', async () => {
    const ws = await kcp.createWorkspace('root:fresh', { shard: 'two', type: { path: 'root:types', name: 'initialized' } });
    const plain = await kcp.createWorkspace('root:plainly', { shard: 'two', type: { path: 'root:types', name: 'plain' } });
    const initializer = `${types.name}:initialized`;
    await expect.poll(async () => (await logicalCluster(ws)).status).toMatchObject({ phase: 'Initializing', initializers: [initializer] });
    await expect.poll(async () => (await logicalCluster(plain)).status?.phase).toBe('Ready');

    await expect
      .poll(async () => (await http.get(`${vw('two', '*')}${LC}`)).body.items?.map((i: any) => i.metadata.annotations['kcp.io/cluster']))
      .toEqual([ws.name]);
    expect((await http.get(`${vw('one', '*')}${LC}`)).body.items).toEqual([]);
    expect((await http.get(`${vw('two', '*')}/api/v1/configmaps`)).status).toBe(404);
    expect((await http.get(`${vw('two', ws.name)}/api/v1/namespaces/default/configmaps`)).status).toBe(200);
    expect((await http.get(`${vw('two', plain.name)}/api/v1/namespaces/default/configmaps`)).status).toBe(404);

    const watch = await http.watch(`${vw('two', '*')}${LC}`);
    try {
      await watch.until((e) => e.type === 'ADDED');
      const lc = await logicalCluster(ws);
      const patch = { metadata: { resourceVersion: lc.metadata.resourceVersion }, status: { initializers: [] } };
      expect((await http.patch(`${vw('two', ws.name)}${LC}/cluster/status`, 'application/merge-patch+json', patch)).status).toBe(200);
      const events = await watch.until((e) => e.type === 'DELETED', 10_000);
      expect(events.at(-1)!.object.metadata.annotations['kcp.io/cluster']).toBe(ws.name);
    } finally {
      watch.close();
    }
    await expect.poll(async () => (await logicalCluster(ws)).status?.phase).toBe('Ready');
    await expect.poll(async () => (await http.get(`${vw('two', ws.name)}/api/v1/namespaces/default/configmaps`)).status).toBe(404);
  });
});
