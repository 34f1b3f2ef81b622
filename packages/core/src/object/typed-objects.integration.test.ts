/**
 * The object types TypeScript users already have — `kubernetes-types` interfaces and `kubernetes-models` classes
 * (optional `metadata`, no index signature, literal apiVersion/kind) — work with the client, the cache, the builder,
 * handlers, predicates and the toolkit without casts. `tsc` checks the `expectTypeOf` lines (npm run typecheck); the
 * test runs them over real HTTP against the in-memory server.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigMap as ConfigMapModel } from 'kubernetes-models/v1';
import type { DeploymentCondition } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import type { Condition, ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { startMemoryTier, widgets, type Tier } from '../cluster/tier.test-util.js';
import { findStatusCondition, setStatusCondition } from '../conditions/conditions.js';
import { createOrPatch, createOrUpdate } from '../createorupdate/create-or-update.js';
import { addFinalizer, containsFinalizer } from '../finalizer/finalizers.js';
import { getControllerOf, setControllerReference } from '../owner/owner-references.js';
import { ignoreNotFound } from '../client/errors.js';
import { controllerManagedBy } from '../builder/builder.js';
import { enqueueRequestsFromMapFunc } from '../handler/enqueue-from-map-func.js';
import { silentLogger } from '../log/logger.js';
import { newManager } from '../manager/manager.js';
import { predicateFuncs } from '../predicate/funcs.js';

let tier: Tier;
beforeAll(async () => {
  tier = await startMemoryTier();
});
afterAll(async () => {
  await tier?.close();
});

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const secrets = { apiVersion: 'v1', kind: 'Secret' } as const;

describe('kubernetes-types and kubernetes-models objects', () => {
  it('the client creates, reads (from the cache) and lists them typed', async () => {
    const ns = await tier.namespace();
    const { client } = tier.cluster;
    const created = await client.create<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ns, name: 'a' },
      data: { k: 'v' },
    });
    expectTypeOf(created).toEqualTypeOf<ConfigMap>();

    const read = await client.get<ConfigMap>(configMaps, { namespace: ns, name: 'a' });
    expectTypeOf(read.data).toEqualTypeOf<{ [name: string]: string } | undefined>();
    expect(read.data).toEqual({ k: 'v' });

    const list = await client.list<ConfigMap>(configMaps, { namespace: ns });
    expectTypeOf(list.items).toEqualTypeOf<ConfigMap[]>();
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['a']);

    const model = new ConfigMapModel({ metadata: { namespace: ns, name: 'b' }, data: { from: 'model' } });
    const stored = await client.create(model);
    expect(stored.data).toEqual({ from: 'model' });
    expect((await client.get<ConfigMapModel>(configMaps, { namespace: ns, name: 'b' }).catch(ignoreNotFound))?.data).toEqual({
      from: 'model',
    });
  });

  it('the toolkit takes them: createOrUpdate, createOrPatch, finalizers, owners, conditions', async () => {
    const ns = await tier.namespace();
    const { client } = tier.cluster;

    const owner = new ConfigMapModel({ metadata: { namespace: ns, name: 'web' }, data: { replicas: '1' } });
    expect(await createOrUpdate(client, owner, (c) => void (c.data = { replicas: '2' }))).toBe('created');
    expectTypeOf(owner).toEqualTypeOf<ConfigMapModel>();

    const child: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: ns, name: 'web-credentials' } };
    expect(
      await createOrPatch(client, child, (c) => {
        c.stringData = { replicas: owner.data?.['replicas'] ?? '' };
        setControllerReference(owner, c);
        addFinalizer(c, 'example.com/cleanup');
      }),
    ).toBe('created');
    const stored = await tier.direct.get<Secret>(secrets, { namespace: ns, name: 'web-credentials' });
    expect(getControllerOf(stored)).toMatchObject({ kind: 'ConfigMap', name: 'web', uid: owner.metadata?.uid });
    expect(containsFinalizer(stored, 'example.com/cleanup')).toBe(true);

    // A CRD type as @kubernetes-models/crd-generate or hand-written code declares it, with metav1.Condition.
    interface TypedWidget {
      apiVersion: 'toolkit.example.com/v1';
      kind: 'Widget';
      metadata?: ObjectMeta;
      spec?: { size?: number };
      status?: { conditions?: Condition[] };
    }
    const widget: TypedWidget = { ...widgets, metadata: { namespace: ns, name: 'w' }, spec: { size: 1 } };
    expect(await createOrUpdate(client, widget, () => {})).toBe('created'); // a create does not write status
    const result = await createOrPatch(client, widget, (w) => {
      const conditions = (w.status ??= {}).conditions ?? [];
      setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Sized', message: 'size 1' });
      w.status.conditions = conditions;
    });
    expect(result).toBe('updatedStatusOnly');
    const read = await tier.direct.get<TypedWidget>(widgets, { namespace: ns, name: 'w' });
    expect(findStatusCondition(read.status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Sized' });

    // Built-in status conditions type-check too (their reason and lastTransitionTime are optional).
    const deploymentConditions: DeploymentCondition[] = [];
    expect(setStatusCondition(deploymentConditions, { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' })).toBe(true);
    expectTypeOf(findStatusCondition(deploymentConditions, 'Available')).toEqualTypeOf<DeploymentCondition | undefined>();
  });

  it('the builder, handlers and predicates take them: events arrive typed', async () => {
    const ns = await tier.namespace();
    const kc = new KubeConfig();
    kc.loadFromString(tier.kubeconfig);
    const mgr = newManager(kc, undefined, { logger: silentLogger });
    const reconciled: string[] = [];
    controllerManagedBy(mgr)
      .named('typed')
      .for<ConfigMap>(configMaps, {
        predicates: [predicateFuncs<ConfigMap>((cm) => cm.metadata?.namespace === ns && cm.data?.['typed'] === 'yes')],
      })
      .owns<Secret>(secrets)
      .watches<Secret>(
        secrets,
        enqueueRequestsFromMapFunc<Secret>((secret) => {
          const target = secret.metadata?.annotations?.['typed.example.com/config'];
          return target && secret.metadata?.namespace === ns ? [{ namespace: ns, name: target }] : [];
        }),
      )
      .complete(async (req) => void reconciled.push(req.name));
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await tier.direct.create<ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: ns, name: 'typed' },
        data: { typed: 'yes' },
      });
      await tier.direct.create<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'untyped' }, data: {} });
      await expect.poll(() => reconciled, { timeout: 10_000 }).toContain('typed');
      await tier.direct.create<Secret>({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: ns, name: 's', annotations: { 'typed.example.com/config': 'mapped' } },
      });
      await expect.poll(() => reconciled, { timeout: 10_000 }).toContain('mapped');
      expect(reconciled).not.toContain('untyped');
    } finally {
      stop.abort();
      await running;
    }
  });
});
