import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../conformance/http-client.js';
import type { KcpServer } from './kcp-server.js';
import { startKcpServer } from './kcp-server.js';
import type { Workspace } from './workspaces.js';

const thingSchema = {
  metadata: { name: 'v1.things.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        subresources: { status: {} },
      },
    ],
  },
};
const thing = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name }, spec: { message: name } });
const condition = (obj: any, type: string) => (obj.status?.conditions ?? []).find((c: any) => c.type === type);

describe('fake kcp', () => {
  let kcp: KcpServer;
  let http: KubeHttpClient;
  let provider: Workspace;
  let consumer: Workspace;
  beforeAll(async () => {
    kcp = await startKcpServer({ shards: ['one', 'two'] });
    http = new KubeHttpClient(kcp.kubeconfig());
    provider = await kcp.createWorkspace('root:provider');
    consumer = await kcp.createWorkspace('root:consumer');
    await kcp.createExport(provider, { name: 'example.com', schemas: [thingSchema] });
  });
  afterAll(async () => {
    http.close();
    await kcp.close();
  });

  const vw = (shard: string) => kcp.endpointUrl(shard, provider, 'example.com').slice(kcp.url.length);

  test('workspaces are logical clusters with hashed names, reachable by path through the front proxy', async () => {
    expect(consumer.name).toMatch(/^[0-9a-f]{16}$/);
    expect(consumer.name).not.toBe(provider.name);
    const byPath = await http.get('/clusters/root:consumer/api/v1/namespaces/default');
    expect(byPath.status).toBe(200);
    expect(byPath.body.metadata.annotations['kcp.io/cluster']).toBe(consumer.name);
    await expect(kcp.createWorkspace('Root:bad')).rejects.toThrow(/invalid workspace path/);
    await expect(kcp.createWorkspace('root:x', { shard: 'three' })).rejects.toThrow(/unknown shard/);
  });

  test('a binding to an existing export becomes Ready, serves the schemas in its workspace and is annotated with its path', async () => {
    const binding: any = await kcp.bind(consumer, { exportPath: 'root:provider', exportName: 'example.com' });
    expect(binding.apiVersion).toBe('apis.kcp.io/v1alpha2');
    expect(binding.metadata.annotations).toMatchObject({ 'kcp.io/cluster': consumer.name, 'kcp.io/path': 'root:consumer' });
    expect(binding.status).toMatchObject({
      phase: 'Bound',
      apiExportClusterName: provider.name,
      boundResources: [{ group: 'example.com', resource: 'things', storageVersions: ['v1'] }],
    });
    expect(condition(binding, 'Ready')).toMatchObject({ status: 'True' });
    expect((await http.post(`/clusters/${consumer.name}/apis/example.com/v1/namespaces/default/things`, thing('stone'))).status).toBe(201);
    expect((await http.get(`/clusters/${provider.name}/apis/example.com/v1`)).status).toBe(404);
  });

  test('the endpoint slice lists one URL per shard hosting a Ready binding', async () => {
    await expect.poll(() => kcp.endpointUrls(provider, 'example.com')).toEqual([kcp.endpointUrl('one', provider, 'example.com')]);
    expect(kcp.endpointUrl('one', provider, 'example.com')).toBe(`${kcp.url}/shards/one/services/apiexport/${provider.name}/example.com`);
  });

  test('the virtual workspace serves exactly the exported resources and read-only APIBindings of bound workspaces', async () => {
    const things = await http.get(`${vw('one')}/clusters/*/apis/example.com/v1/things`);
    expect(things.status).toBe(200);
    expect(things.body.items.map((i: any) => [i.metadata.annotations['kcp.io/cluster'], i.metadata.name])).toEqual([
      [consumer.name, 'stone'],
    ]);
    const bindings = await http.get(`${vw('one')}/clusters/*/apis/apis.kcp.io/v1alpha1/apibindings`);
    expect(bindings.body.items.map((i: any) => i.metadata.annotations['kcp.io/cluster'])).toEqual([consumer.name]);
    const groups = await http.get(`${vw('one')}/clusters/*/apis`);
    expect(groups.body.groups.map((g: any) => g.name).sort()).toEqual(['apis.kcp.io', 'example.com']);
    expect((await http.get(`${vw('one')}/clusters/*/api/v1/configmaps`)).status).toBe(404);
    expect((await http.delete(`${vw('one')}/clusters/${consumer.name}/apis/apis.kcp.io/v1alpha1/apibindings/example.com`)).status).toBe(
      405,
    );
    expect(
      (await http.post(`${vw('one')}/clusters/${consumer.name}/apis/example.com/v1/namespaces/default/things`, thing('box'))).status,
    ).toBe(201);
    expect((await http.get(`${vw('one')}/clusters/${provider.name}/apis/example.com/v1/namespaces/default/things`)).status).toBe(404);
    expect((await http.get(`/shards/one/services/apiexport/${provider.name}/no-such-export/clusters/*/apis`)).status).toBe(404);
  });

  test('a workspace on another shard adds that shard URL; its virtual workspace shows only its own workspaces; unbinding removes it', async () => {
    const other = await kcp.createWorkspace('root:other', { shard: 'two' });
    await kcp.bind(other, { exportPath: 'root:provider', exportName: 'example.com', version: 'v1alpha1' });
    await expect
      .poll(() => kcp.endpointUrls(provider, 'example.com'))
      .toEqual(['one', 'two'].map((s) => kcp.endpointUrl(s, provider, 'example.com')));
    expect((await http.post(`/clusters/${other.name}/apis/example.com/v1/namespaces/default/things`, thing('pebble'))).status).toBe(201);
    const two = await http.get(`${vw('two')}/clusters/*/apis/example.com/v1/things`);
    expect(two.body.items.map((i: any) => i.metadata.name)).toEqual(['pebble']);
    const one = await http.get(`${vw('one')}/clusters/*/apis/example.com/v1/things`);
    expect(one.body.items.map((i: any) => i.metadata.name).sort()).toEqual(['box', 'stone']);
    await kcp.unbind(other, 'example.com');
    await expect.poll(() => kcp.endpointUrls(provider, 'example.com')).toEqual([kcp.endpointUrl('one', provider, 'example.com')]);
  });

  test('a binding to a missing export stays not Ready until the export appears', async () => {
    const late = await kcp.createWorkspace('root:late');
    const binding: any = await kcp.bind(late, { exportPath: 'root:provider', exportName: 'later.example.com', waitReady: false });
    expect(binding.metadata.name).toBe('later.example.com');
    const path = `/clusters/${late.name}/apis/apis.kcp.io/v1alpha1/apibindings/later.example.com`;
    await expect
      .poll(async () => condition((await http.get(path)).body, 'Ready'))
      .toMatchObject({ status: 'False', reason: 'APIExportNotFound' });
    await kcp.createExport(provider, { name: 'later.example.com', version: 'v1alpha2' });
    await expect.poll(async () => condition((await http.get(path)).body, 'Ready')?.status).toBe('True');
  });
});
