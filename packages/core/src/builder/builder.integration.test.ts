/**
 * The builder over real API servers through the manager: owners reconciled from owned objects, engage options
 * (local cluster, provider clusters, cluster filter), event filters and metadata-only watches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newCluster } from '../cluster/cluster.js';
import { configMap, configMaps, Fleet, kubeconfigOf, secrets, type Member } from '../controller/fleet.test-util.js';
import { silentLogger } from '../log/logger.js';
import { newManager, type MultiClusterManager } from '../manager/manager.js';
import { enqueueRequestsFromMapFunc } from '../handler/enqueue-from-map-func.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { Request } from '../reconcile/types.js';
import { controllerManagedBy } from './builder.js';
import { TestProvider } from './test-provider.test-util.js';

const fleet = new Fleet();
const stops: { stop: AbortController; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done.catch(() => {});
  }
  await fleet.closeAll();
});

function managerOn(local: Member, provider?: TestProvider): MultiClusterManager {
  const mgr = newManager(kubeconfigOf(local.server), provider, {
    logger: silentLogger,
    newCluster: (config, o) => newCluster(config, { ...o, name: 'local' }),
  });
  return mgr;
}

function start(mgr: MultiClusterManager): void {
  const stop = new AbortController();
  stops.push({ stop, done: mgr.start(stop.signal) });
}

const key = (r: Request) => `${r.clusterName}/${r.namespace}/${r.name}`;

describe('builder over API servers', () => {
  it('reconciles the owner when an owned object changes (controller owner only unless asked)', async () => {
    const local = await fleet.member('local-api');
    const client = local.cluster.client;
    const mgr = managerOn(local);
    const calls: string[] = [];
    controllerManagedBy(mgr)
      .for(configMaps)
      .owns(secrets)
      .complete((req) => {
        calls.push(key(req));
        return Promise.resolve();
      });
    start(mgr);
    const owner = await client.create(configMap('owner'));
    await expect.poll(() => calls).toContain('/default/owner');
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! };
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'default', name: 'owned', ownerReferences: [{ ...ownerRef, controller: true }] },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'default', name: 'referenced', ownerReferences: [{ ...ownerRef, name: 'other', controller: false }] },
    });
    await expect.poll(() => calls.filter((c) => c === '/default/owner').length).toBeGreaterThanOrEqual(2);
    expect(calls).not.toContain('/default/other');
    expect(calls).not.toContain('/default/owned');
  });

  it('watches provider clusters by default when a provider exists, the local cluster only when asked, and honours the cluster filter', async () => {
    const local = await fleet.member('local-api');
    const [east, west] = await Promise.all([fleet.member('east'), fleet.member('west')]);
    const provider = new TestProvider();
    const mgr = managerOn(local, provider);
    const providerOnly: string[] = [];
    const both: string[] = [];
    controllerManagedBy(mgr)
      .named('provider-only')
      .for(configMaps, { clusterFilter: (name) => name !== 'west' })
      .complete((req) => {
        providerOnly.push(key(req));
        return Promise.resolve();
      });
    controllerManagedBy(mgr)
      .named('both')
      .for(configMaps, { engageWithLocalCluster: true }, { clusterFilter: () => true })
      .complete((req) => {
        both.push(key(req));
        return Promise.resolve();
      });
    start(mgr);
    await provider.add('east', east);
    await provider.add('west', west);
    await Promise.all([local, east, west].map((m) => m.cluster.client.create(configMap('cm'))));
    await expect.poll(() => [...new Set(both)].sort()).toEqual(['/default/cm', 'east/default/cm', 'west/default/cm']);
    expect([...new Set(providerOnly)].sort()).toEqual(['east/default/cm']);
  });

  it('applies withEventFilter to every watch and metadataOnly to its watch', async () => {
    const local = await fleet.member('local-api');
    const mgr = managerOn(local);
    const calls: string[] = [];
    let sawData = false;
    controllerManagedBy(mgr)
      .named('filtered')
      .for(
        configMaps,
        { metadataOnly: true },
        {
          predicates: [
            {
              create: (e) => {
                if ('data' in e.object) sawData = true;
                return true;
              },
            },
          ],
        },
      )
      .withEventFilter({ create: (e) => e.object.metadata.name !== 'ignored' })
      .complete((req) => {
        calls.push(key(req));
        return Promise.resolve();
      });
    start(mgr);
    await local.cluster.client.create(configMap('ignored', { a: 'b' }));
    await local.cluster.client.create(configMap('kept', { a: 'b' }));
    await expect.poll(() => calls).toContain('/default/kept');
    expect(calls).not.toContain('/default/ignored');
    expect(sawData).toBe(false);
  });

  it('drops requests whose cluster is gone by default, and retries them with the wrapper off', async () => {
    const local = await fleet.member('local-api');
    const mgr = managerOn(local);
    const wrapped: string[] = [];
    const unwrapped: string[] = [];
    const gone = async (calls: string[], req: Request) => {
      calls.push(key(req));
      await mgr.getCluster('vanished');
    };
    controllerManagedBy(mgr)
      .named('wrapped')
      .for(configMaps)
      .complete((req) => gone(wrapped, req));
    controllerManagedBy(mgr)
      .named('unwrapped')
      .for(configMaps)
      .withClusterNotFoundWrapper(false)
      .complete((req) => gone(unwrapped, req));
    start(mgr);
    await local.cluster.client.create(configMap('x'));
    await expect.poll(() => unwrapped.length).toBeGreaterThanOrEqual(4);
    expect(wrapped).toEqual(['/default/x']);
    await expect(mgr.getCluster('vanished')).rejects.toBeInstanceOf(ClusterNotFoundError);
  });

  it('maps events from provider clusters to requests for the local cluster (multi-cluster-aware watches)', async () => {
    const local = await fleet.member('local-api');
    const east = await fleet.member('east');
    const provider = new TestProvider();
    const mgr = managerOn(local, provider);
    const calls: string[] = [];
    controllerManagedBy(mgr)
      .named('aggregate')
      .for(configMaps, { engageWithLocalCluster: true, engageWithProviderClusters: false })
      .watches(
        configMaps,
        enqueueRequestsFromMapFunc((cm, ctx) => [
          { clusterName: '', namespace: 'default', name: `from-${ctx.clusterName}-${cm.metadata.name}` },
        ]),
      )
      .complete((req) => {
        calls.push(key(req));
        return Promise.resolve();
      });
    start(mgr);
    await provider.add('east', east);
    await east.cluster.client.create(configMap('remote'));
    await expect.poll(() => calls).toContain('/default/from-east-remote');
    expect(calls.some((c) => c.startsWith('east/'))).toBe(false);
  });
});
