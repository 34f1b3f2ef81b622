/**
 * A cluster's client over the in-memory API server, with every request the server authorizes recorded: reads come
 * from the informer cache (started on first read, no GET or LIST once synced), objects read may be changed freely,
 * `disableFor` kinds and `apiReader` read from the server, writes go to the server, and a kind the server refuses to
 * list fails the read instead of hanging it.
 */
import type { AuthorizationAttributes } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../client/errors.js';
import { CacheNotStartedError, CacheNotSyncedError } from '../cache/errors.js';
import { configMap, configMaps, kubeconfigOf, secrets } from '../controller/fleet.test-util.js';
import type { KubeObject } from '../object/types.js';
import { newCluster } from './cluster.js';
import { startMemoryTier, type Tier } from './tier.test-util.js';

type ConfigMap = KubeObject & { data: Record<string, string> };

let tier: Tier;
const seen: AuthorizationAttributes[] = [];
let refuse: (a: AuthorizationAttributes) => boolean = () => false;

beforeAll(async () => {
  tier = await startMemoryTier({
    authorizer: (a) => {
      seen.push(a);
      return !refuse(a);
    },
  });
});
afterAll(async () => {
  await tier?.close();
});

/** Requests for a resource since `from`, as `verb resource`. */
const requests = (from: number, resource: string) =>
  seen
    .slice(from)
    .filter((a) => a.resource === resource)
    .map((a) => `${a.verb}${a.name ? ` ${a.name}` : ''}`);

describe("a cluster's client", () => {
  it('reads from the cache: the first read starts the informer, later reads send nothing to the server', async () => {
    const ns = await tier.namespace();
    const cluster = tier.newCluster();
    await cluster.apiReader.create(configMap('a', { k: 'v' }, ns));
    await cluster.apiReader.create(configMap('b', { k: 'w' }, ns));

    const before = seen.length;
    const a = await cluster.client.get<KubeObject & { data?: Record<string, string> }>(configMaps, { namespace: ns, name: 'a' });
    expect(a.data).toEqual({ k: 'v' });
    // The informer listed (the read waited for it) and then watches; no GET of the object itself.
    await expect.poll(() => requests(before, 'configmaps')).toEqual(['list', 'watch']);

    const synced = seen.length;
    for (let i = 0; i < 50; i++) {
      await cluster.client.get(configMaps, { namespace: ns, name: 'a' });
      await cluster.client.list(configMaps, { namespace: ns, labelSelector: {} });
    }
    await expect(cluster.client.get(configMaps, { namespace: ns, name: 'missing' })).rejects.toSatisfy(isNotFound);
    expect(requests(synced, 'configmaps')).toEqual([]);
    expect((await cluster.client.list(configMaps, { namespace: ns })).items.map((o) => o.metadata.name)).toEqual(['a', 'b']);

    // Writes go to the server; the cache catches up through the watch.
    await cluster.client.update({ ...a, data: { k: 'changed' } });
    expect(requests(synced, 'configmaps')).toEqual(['update a']);
    await expect
      .poll(async () => ((await cluster.client.get(configMaps, { namespace: ns, name: 'a' })) as { data?: object }).data)
      .toEqual({ k: 'changed' });
  });

  it('hands out copies: changing what a read returned changes neither the cache nor the next read', async () => {
    const ns = await tier.namespace();
    const cluster = tier.newCluster();
    await cluster.client.create(configMap('c', { k: 'v' }, ns));
    await expect
      .poll(() =>
        cluster.client.get(configMaps, { namespace: ns, name: 'c' }).then(
          () => true,
          () => false,
        ),
      )
      .toBe(true);
    const first = await cluster.client.get<ConfigMap>(configMaps, { namespace: ns, name: 'c' });
    first.data['k'] = 'mutated';
    (first.metadata.labels ??= {})['x'] = 'y';
    const listed = (await cluster.client.list<ConfigMap>(configMaps, { namespace: ns })).items[0]!;
    listed.data['k'] = 'mutated too';
    const again = await cluster.client.get<ConfigMap>(configMaps, { namespace: ns, name: 'c' });
    expect(again.data).toEqual({ k: 'v' });
    expect(again.metadata.labels).toBeUndefined();
  });

  it('reads disableFor kinds and apiReader reads from the server, without an informer', async () => {
    const ns = await tier.namespace();
    const cluster = tier.newCluster({ client: { cache: { disableFor: [secrets] } } });
    await cluster.client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: ns, name: 's' }, stringData: { p: 'x' } });
    await cluster.client.create(configMap('d', {}, ns));
    const before = seen.length;
    await cluster.client.get(secrets, { namespace: ns, name: 's' });
    await cluster.client.list(secrets, { namespace: ns });
    expect(requests(before, 'secrets')).toEqual(['get s', 'list']);
    await cluster.apiReader.get(configMaps, { namespace: ns, name: 'd' });
    expect(requests(before, 'configmaps')).toEqual(['get d']);
    expect(() => newCluster(kubeconfigOf(tier.server!), { client: { cache: { disableFor: [{ kind: 'Secret' } as never] } } })).toThrow(
      /disableFor: expected \{ apiVersion, kind \}/,
    );
  });

  it('fails a read of a kind the server refuses to list, instead of waiting forever', async () => {
    const ns = await tier.namespace();
    const cluster = tier.newCluster();
    refuse = (a) => a.resource === 'serviceaccounts' && (a.verb === 'list' || a.verb === 'watch');
    try {
      const err = await cluster.client
        .get({ apiVersion: 'v1', kind: 'ServiceAccount' }, { namespace: ns, name: 'x' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CacheNotSyncedError);
      expect((err as Error).message).toMatch(/v1, Kind=ServiceAccount has not synced yet \(the server refused to list it: .*403 Forbidden/);
      // get is allowed: the API reader works.
      await expect(cluster.apiReader.get({ apiVersion: 'v1', kind: 'ServiceAccount' }, { namespace: ns, name: 'x' })).rejects.toSatisfy(
        isNotFound,
      );
    } finally {
      refuse = () => false;
    }
  });

  it('before the cluster is started, reads say to start it or use apiReader', async () => {
    const cluster = newCluster(kubeconfigOf(tier.server!));
    try {
      const err = await cluster.client.get(configMaps, { namespace: 'default', name: 'x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CacheNotStartedError);
      expect((err as Error).message).toMatch(/read with cluster.apiReader/);
      await expect(cluster.apiReader.get(configMaps, { namespace: 'default', name: 'x' })).rejects.toSatisfy(isNotFound);
    } finally {
      await cluster.close();
    }
  });
});
