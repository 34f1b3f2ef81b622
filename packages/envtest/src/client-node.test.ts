/**
 * @kubernetes/client-node 2.0.1's own clients against the in-memory server: typed CoreV1Api CRUD, CustomObjectsApi
 * on a CRD, KubernetesObjectApi's strategic-merge default (415 on a CR), a raw Watch and an informer.
 */
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi, Watch, makeInformer } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiServer } from './index.js';
import { startApiServer } from './index.js';

describe('@kubernetes/client-node against the in-memory server', () => {
  let server: ApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;

  beforeAll(async () => {
    server = await startApiServer();
    kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig());
    core = kc.makeApiClient(CoreV1Api);
  });
  afterAll(() => server?.close());

  test('CoreV1Api: create, read, replace, list, delete a ConfigMap; 404 and 409 as ApiException', async () => {
    await core.createNamespace({ body: { metadata: { name: 'cn-crud' } } });
    const created = await core.createNamespacedConfigMap({ namespace: 'cn-crud', body: { metadata: { name: 'a' }, data: { k: 'v' } } });
    expect(created.metadata?.uid).toBeTruthy();
    const read = await core.readNamespacedConfigMap({ name: 'a', namespace: 'cn-crud' });
    expect(read.data).toEqual({ k: 'v' });
    const replaced = await core.replaceNamespacedConfigMap({ name: 'a', namespace: 'cn-crud', body: { ...read, data: { k: 'w' } } });
    expect(replaced.data).toEqual({ k: 'w' });
    const stale = await core
      .replaceNamespacedConfigMap({ name: 'a', namespace: 'cn-crud', body: { ...read, data: { k: 'x' } } })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiException);
    expect((stale as ApiException<unknown>).code).toBe(409);
    const list = await core.listNamespacedConfigMap({ namespace: 'cn-crud' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['a']);
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'cn-crud' });
    const gone = await core.readNamespacedConfigMap({ name: 'a', namespace: 'cn-crud' }).catch((e: unknown) => e);
    expect((gone as ApiException<unknown>).code).toBe(404);
  });

  test('CustomObjectsApi on a CRD; KubernetesObjectApi.patch defaults to strategic merge and gets 415 on a CR', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.cn.example.com' },
      spec: {
        group: 'cn.example.com',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
            },
          },
        ],
      },
    } as KubernetesObject);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const thing = { apiVersion: 'cn.example.com/v1', kind: 'Thing', metadata: { name: 't1', namespace: 'default' }, spec: { size: 1 } };
    await expect
      .poll(
        () =>
          custom
            .createNamespacedCustomObject({ group: 'cn.example.com', version: 'v1', namespace: 'default', plural: 'things', body: thing })
            .then(
              () => true,
              () => false,
            ),
        { timeout: 10_000, interval: 50 },
      )
      .toBe(true);
    const got = (await custom.getNamespacedCustomObject({
      group: 'cn.example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'things',
      name: 't1',
    })) as { spec: { size: number } };
    expect(got.spec.size).toBe(1);
    const smp = await objects.patch({ ...thing, spec: { size: 2 } }).catch((e: unknown) => e);
    expect((smp as ApiException<unknown>).code).toBe(415);
    const listed = (await custom.listNamespacedCustomObject({
      group: 'cn.example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'things',
    })) as { items: unknown[] };
    expect(listed.items).toHaveLength(1);
  });

  test('Watch: sees ADDED and MODIFIED for a ConfigMap', async () => {
    const events: string[] = [];
    const watch = new Watch(kc);
    let ended: unknown = 'open';
    const controller = await watch.watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: (await core.listNamespacedConfigMap({ namespace: 'default' })).metadata?.resourceVersion },
      (type, obj: V1ConfigMap) => events.push(`${type}:${obj.metadata?.name}:${obj.data?.['v'] ?? ''}`),
      (err) => (ended = err),
    );
    try {
      const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'watched' }, data: { v: '1' } } });
      await core.replaceNamespacedConfigMap({ name: 'watched', namespace: 'default', body: { ...cm, data: { v: '2' } } });
      await expect.poll(() => events, { timeout: 10_000 }).toEqual(['ADDED:watched:1', 'MODIFIED:watched:2']);
      expect(ended).toBe('open');
    } finally {
      controller.abort();
    }
  });

  test('informer: start() resolves, the cache fills, updates and deletes arrive, and it relists after a 410', async () => {
    // Short server-side watch timeouts make the informer re-watch (client-node gives up on broken connections).
    const shortWatches = await startApiServer({ defaultWatchTimeoutSeconds: 1 });
    const kc = new KubeConfig();
    kc.loadFromString(shortWatches.kubeconfig());
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'cn-inf' } } });
    await core.createNamespacedConfigMap({ namespace: 'cn-inf', body: { metadata: { name: 'pre' } } });
    let lists = 0;
    const informer = makeInformer(kc, '/api/v1/namespaces/cn-inf/configmaps', () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'cn-inf' });
    });
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    await informer.start();
    try {
      expect(informer.list().map((o) => o.metadata?.name)).toEqual(['pre']);
      const cm = await core.createNamespacedConfigMap({ namespace: 'cn-inf', body: { metadata: { name: 'live' }, data: { v: '1' } } });
      await core.replaceNamespacedConfigMap({ name: 'live', namespace: 'cn-inf', body: { ...cm, data: { v: '2' } } });
      await expect.poll(() => seen, { timeout: 10_000 }).toEqual(expect.arrayContaining(['add:pre', 'add:live', 'update:live']));
      await core.deleteNamespacedConfigMap({ name: 'pre', namespace: 'cn-inf' });
      await expect.poll(() => seen, { timeout: 15_000 }).toContain('delete:pre');
      // The next re-watch gets a 410 ERROR event: the informer relists, then keeps watching.
      expect(lists).toBe(1);
      shortWatches.faults.failNextWatch(410);
      await expect.poll(() => lists, { timeout: 15_000 }).toBe(2);
      await core.createNamespacedConfigMap({ namespace: 'cn-inf', body: { metadata: { name: 'after' } } });
      await expect
        .poll(
          () =>
            informer
              .list()
              .map((o) => o.metadata?.name)
              .sort(),
          { timeout: 15_000 },
        )
        .toEqual(['after', 'live']);
      expect(shortWatches.stats().requests).toBeGreaterThan(5);
    } finally {
      await informer.stop();
      await shortWatches.close();
    }
  });
});
