/**
 * The origin stamp in a multi-cluster-aware controller over in-memory API servers: ConfigMaps of a provider cluster are
 * projected into the local cluster under nameForOrigin, stamped with setOrigin; deleting a projection enqueues its
 * origin through enqueueRequestForOrigin, which puts it back; the label selector finds what one origin produced.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestProvider } from '../builder/test-provider.test-util.js';
import { controllerManagedBy } from '../builder/builder.js';
import { ignoreAlreadyExists, ignoreNotFound, isNotFound } from '../client/errors.js';
import { configMap, configMaps, Fleet, kubeconfigOf } from '../controller/fleet.test-util.js';
import { silentLogger } from '../log/logger.js';
import { newManager } from '../manager/manager.js';
import type { KubeObject } from '../object/types.js';
import type { Request } from '../reconcile/types.js';
import { enqueueRequestForOrigin, nameForOrigin, originOf, originSelector, setOrigin } from './origin.js';

const fleet = new Fleet();
const stop = new AbortController();
let running: Promise<void> | undefined;
afterEach(async () => {
  stop.abort();
  await running;
  await fleet.closeAll();
});

describe('origin stamp across clusters', () => {
  it('maps events of projected objects back to their origin cluster', async () => {
    const local = await fleet.member('local');
    const east = await fleet.member('east');
    const provider = new TestProvider();
    const mgr = newManager(kubeconfigOf(local.server), provider, { logger: silentLogger });
    const reconciled: Request[] = [];
    controllerManagedBy(mgr)
      .named('project')
      .for(configMaps, { engageWithLocalCluster: false })
      .watches(configMaps, enqueueRequestForOrigin(), { engageWithLocalCluster: true, engageWithProviderClusters: false })
      .complete(async (req, ctx) => {
        reconciled.push(req);
        const source = await (await mgr.getCluster(req.clusterName)).client.get(configMaps, req).catch(ignoreNotFound);
        if (!source) return;
        const projection: KubeObject = { ...configMap(nameForOrigin(req), source['data'] as Record<string, string>) };
        setOrigin(projection, req);
        await mgr.getLocalCluster().client.create(projection, { signal: ctx.signal }).catch(ignoreAlreadyExists);
      });
    running = mgr.start(stop.signal);
    await provider.add('east', east);
    await east.cluster.client.create(configMap('settings', { a: '1' }));
    const origin = { clusterName: 'east', namespace: 'default', name: 'settings' };
    const projected = { namespace: 'default', name: nameForOrigin(origin) };

    const read = () => local.cluster.apiReader.get(configMaps, projected);
    await expect
      .poll(() =>
        read().then(
          (o) => originOf(o),
          () => undefined,
        ),
      )
      .toEqual(origin);
    const { items } = await local.cluster.apiReader.list(configMaps, { namespace: 'default', labelSelector: originSelector(origin) });
    expect(items.map((o) => o.metadata.name)).toEqual([projected.name]);

    // Deleting the projection in the local cluster reconciles its origin in east, which recreates it.
    const before = reconciled.length;
    const firstUid = (await read()).metadata.uid;
    await local.cluster.apiReader.delete(configMaps, projected);
    await expect.poll(() => reconciled.slice(before)).toContainEqual(origin);
    await expect
      .poll(() =>
        read().then(
          (o) => o.metadata.uid,
          (e: unknown) => (isNotFound(e) ? 'gone' : e),
        ),
      )
      .not.toBe('gone');
    expect((await read()).metadata.uid).not.toBe(firstUid);
    expect(reconciled.every((r) => r.clusterName === 'east')).toBe(true);
  });
});
