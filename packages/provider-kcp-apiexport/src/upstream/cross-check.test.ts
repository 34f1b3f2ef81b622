/**
 * Fidelity: the upstream Go apiexport provider (kcp-dev/multicluster-provider, built by tools/go-upstream-providers)
 * and ApiExportProvider run side by side against one fake kcp, each with the same ConfigMap controller, through a
 * scenario of steps (tools/test-setup/src/cross-check). After each step settles, both must have engaged the expected
 * logical clusters and reconciled the same objects to the same state; a difference is a bug in the fake kcp or in
 * the provider.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '@multicluster-runtime/core';
import type { ApiClient } from '@multicluster-runtime/core/client';
import type { KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminClient, crossCheckSides } from '../../../../tools/test-setup/src/cross-check/harness.test-util.js';
import { startTsSide } from '../../../../tools/test-setup/src/cross-check/ts-side.test-util.js';
import {
  UpstreamProviders,
  buildUpstreamProviders,
  goMissing,
} from '../../../../tools/test-setup/src/cross-check/upstream-providers.test-util.js';
import { ApiExportProvider } from '../provider.js';

const EXPORT = 'cross.example.com';
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const THING = { apiVersion: 'cross.example.com/v1', kind: 'Thing' };
const CLAIMS = [{ group: '', resource: 'configmaps' }];
/** How long a step may take to settle; a step's test gets twice that (it may wait twice). */
const SETTLE_MS = 60_000;

const thingSchema = {
  metadata: { name: 'v1.things.cross.example.com' },
  spec: {
    group: 'cross.example.com',
    names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

const configMap = (name: string, data: Record<string, string>): KubeObject => ({
  ...CONFIGMAP,
  metadata: { name, namespace: 'default' },
  data,
});

const missing = await goMissing();

describe.skipIf(missing !== undefined)(
  missing
    ? `upstream Go kcp provider cross-check skipped: ${missing}`
    : 'the upstream Go apiexport provider and ApiExportProvider see the same fleet',
  { timeout: 2 * SETTLE_MS + 30_000 },
  () => {
    let kcp: KcpServer;
    let providerWs: KcpWorkspace;
    const ws: Record<string, KcpWorkspace> = {};
    const clients = new Map<string, ReturnType<typeof adminClient>>();
    const sides = crossCheckSides(SETTLE_MS);
    const { goObs, tsObs, check } = sides;
    let tmp: string | undefined;
    let startBoth: () => Promise<void>;

    beforeAll(async () => {
      // A cold Go build cache compiles client-go, controller-runtime and the kcp SDK: minutes. .ci/run builds first.
      const bin = await buildUpstreamProviders(25 * 60_000);
      kcp = await startKcpServer({ shards: ['one', 'two'] });
      providerWs = await kcp.createWorkspace('root:provider');
      await kcp.createExport(providerWs, { name: EXPORT, schemas: [thingSchema], permissionClaims: CLAIMS });
      for (const [name, shard] of [
        ['a', 'one'],
        ['b', 'two'],
        ['c', 'two'],
        ['d', 'one'],
      ] as const) {
        ws[name] = await kcp.createWorkspace(`root:${name}`, { shard });
        await client(ws[name]).create(configMap('settings', { owner: name }));
      }
      await bind(ws['a']!);
      await bind(ws['b']!);

      tmp = await mkdtemp(join(tmpdir(), 'go-upstream-providers-'));
      const kubeconfig = join(tmp, 'provider.kubeconfig');
      await writeFile(kubeconfig, kcp.kubeconfig(providerWs), { mode: 0o600 });
      startBoth = async () => {
        sides.go = UpstreamProviders.start(bin, ['--kubeconfig', kubeconfig, '--provider', 'apiexport', '--name', EXPORT], goObs);
        const exportConfig = new KubeConfig();
        exportConfig.loadFromString(kcp.kubeconfig(providerWs));
        sides.ts = await startTsSide(
          exportConfig,
          (logger) => new ApiExportProvider({ endpointSliceName: EXPORT, exportConfig, logger }),
          tsObs,
        );
      };
    }, 30 * 60_000);

    afterAll(async () => {
      await sides.stop();
      for (const c of clients.values()) await c.close();
      await kcp?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    function client(w: KcpWorkspace): ApiClient {
      let c = clients.get(w.name);
      if (!c) clients.set(w.name, (c = adminClient(kcp.kubeconfig(w))));
      return c.client;
    }

    const bind = (w: KcpWorkspace, waitReady = true) =>
      kcp.bind(w, { exportPath: 'root:provider', exportName: EXPORT, acceptClaims: CLAIMS, waitReady });

    /**
     * Runs `act` as a step of the cross-check (see harness.test-util.ts) with these workspaces engaged afterwards.
     * `goDropsDeletionOf` names objects (`<workspace key>|<namespace>/<name>`) the Go side keeps after their
     * deletion: kcp-dev/apimachinery v2.32.0 (which multicluster-provider v0.8.0 pins) keys its informer store with
     * a function that rejects the tombstones a relist produces, so deletions a relist finds are dropped and never
     * reconciled (fixed by kcp-dev/kcp#4364, which no released module carries yet). The TypeScript provider must not
     * share the bug; the README lists it.
     */
    async function step(act: () => Promise<void>, engagedWs: KcpWorkspace[], goDropsDeletionOf: string[] = []): Promise<void> {
      await check.step(act, {
        engaged: engagedWs.map((w) => ({ name: w.name, client: client(w) })),
        goDropsDeletionOf: goDropsDeletionOf.map((rel) => {
          const [w, key] = rel.split('|') as [string, string];
          return `${ws[w]!.name}|${key}`;
        }),
      });
    }

    test('both engage the Ready-bound workspaces on both shards and reconcile their ConfigMaps', async () => {
      await step(() => startBoth(), [ws['a']!, ws['b']!]);
    });

    test('a binding that appears engages its workspace', async () => {
      await step(() => bind(ws['c']!).then(() => {}), [ws['a']!, ws['b']!, ws['c']!]);
    });

    test('a binding that is not Ready (naming conflict) engages nothing, and engages once it becomes Ready', async () => {
      const d = ws['d']!;
      const crds = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
      await step(async () => {
        await client(d).create({
          ...crds,
          metadata: { name: 'things.cross.example.com' },
          spec: { ...thingSchema.spec, versions: thingSchema.spec.versions },
        });
        const binding = await bind(d, false);
        const name = String((binding['metadata'] as { name: string }).name);
        await expect
          .poll(async () => {
            const b = await client(d).get<KubeObject & { status?: { conditions?: { type: string; reason?: string }[] } }>(
              { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIBinding' },
              { name },
            );
            return b.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
          })
          .toBe('NamingConflicts');
      }, [ws['a']!, ws['b']!, ws['c']!]);
      await step(() => client(d).delete(crds, { name: 'things.cross.example.com' }), [ws['a']!, ws['b']!, ws['c']!, d]);
    });

    test('objects that change are reconciled at their new state by both', async () => {
      await step(async () => {
        await client(ws['a']!).patch(
          CONFIGMAP,
          { namespace: 'default', name: 'settings' },
          { type: 'merge', body: { data: { owner: 'A' } } },
        );
        await client(ws['b']!).create(configMap('extra', { more: 'yes' }));
        await client(ws['c']!).delete(CONFIGMAP, { namespace: 'default', name: 'settings' });
        await client(ws['d']!).create({ ...THING, metadata: { name: 'rock', namespace: 'default' } });
      }, [ws['a']!, ws['b']!, ws['c']!, ws['d']!]);
    });

    test('a deleted binding disengages its workspace; its shard stays for the others', async () => {
      await step(async () => {
        await client(ws['b']!).create({ ...THING, metadata: { name: 'pebble', namespace: 'default' } });
        await kcp.unbind(ws['b']!, EXPORT);
      }, [ws['a']!, ws['c']!, ws['d']!]);
      expect(await kcp.endpointUrls(providerWs, EXPORT)).toHaveLength(2);
    });

    test('a shard that restarts: what changed while it was down is reconciled once it is back', async () => {
      await step(
        async () => {
          kcp.stopShard('one');
          await client(ws['a']!).patch(
            CONFIGMAP,
            { namespace: 'default', name: 'settings' },
            { type: 'merge', body: { data: { owner: 'a again' } } },
          );
          await client(ws['d']!).delete(CONFIGMAP, { namespace: 'default', name: 'settings' });
          await client(ws['d']!).create(configMap('while-down', { shard: 'one' }));
          kcp.startShard('one');
        },
        [ws['a']!, ws['c']!, ws['d']!],
        ['d|default/settings'],
      );
    });

    test('the last binding of a shard goes: its endpoint leaves the slice and its workspace is disengaged', async () => {
      await step(() => kcp.unbind(ws['c']!, EXPORT), [ws['a']!, ws['d']!]);
      await expect.poll(() => kcp.endpointUrls(providerWs, EXPORT)).toEqual([kcp.endpointUrl('one', providerWs, EXPORT)]);
    });

    test('a workspace that binds again is engaged again, with every ConfigMap reconciled anew', async () => {
      await step(() => bind(ws['b']!).then(() => {}), [ws['a']!, ws['b']!, ws['d']!]);
      // Each cluster was engaged and disengaged in the same order by both.
      const perCluster = (history: string[]) =>
        Object.fromEntries(Object.values(ws).map((w) => [w.name, history.filter((h) => h.slice(1) === w.name).join(' ')]));
      expect(perCluster(tsObs.history)).toEqual(perCluster(goObs.history));
    });
  },
);
