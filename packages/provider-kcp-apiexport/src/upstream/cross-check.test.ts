/**
 * Fidelity: the upstream Go apiexport provider (kcp-dev/multicluster-provider, built by tools/go-kcp-provider) and
 * ApiExportProvider run side by side against one fake kcp, each with the same ConfigMap controller, through a
 * scenario of steps. After each step settles, both must have engaged the expected logical clusters and reconciled
 * the same objects to the same state; a difference is a bug in the fake kcp or in the provider. Settling is awaited,
 * never slept for: every step ends by bumping a barrier ConfigMap in every cluster that should be engaged, and waits
 * until both sides reconciled every ConfigMap of those clusters at its current resourceVersion.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '@multicluster-runtime/core';
import { isNotFound } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import type { KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { GoKcpProvider, buildGoKcpProvider, goMissing } from './go-kcp-provider.test-util.js';
import type { Seen } from './observation.test-util.js';
import { Observation } from './observation.test-util.js';
import type { TsSide } from './ts-provider.test-util.js';
import { startTsProvider } from './ts-provider.test-util.js';

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
    const clients = new Map<string, { client: ApiClient; transport: Transport }>();
    const goObs = new Observation('go');
    const tsObs = new Observation('ts');
    let go: GoKcpProvider | undefined;
    let ts: TsSide | undefined;
    let tmp: string | undefined;
    let startBoth: () => Promise<void>;
    let stepNo = 0;
    let lastState: Record<string, Seen> = {};
    let lastEngaged: string[] = [];

    beforeAll(async () => {
      // A cold Go build cache compiles client-go, controller-runtime and the kcp SDK: minutes. .ci/run builds first.
      const bin = await buildGoKcpProvider(25 * 60_000);
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

      tmp = await mkdtemp(join(tmpdir(), 'go-kcp-provider-'));
      const kubeconfig = join(tmp, 'provider.kubeconfig');
      await writeFile(kubeconfig, kcp.kubeconfig(providerWs), { mode: 0o600 });
      startBoth = async () => {
        go = GoKcpProvider.start(bin, ['--kubeconfig', kubeconfig, '--provider', 'apiexport', '--name', EXPORT], goObs);
        ts = await startTsProvider(kcp.kubeconfig(providerWs), EXPORT, tsObs);
      };
    }, 30 * 60_000);

    // Each step builds on the previous one: after a failure the rest would only fail for the same reason.
    let broken = false;
    beforeEach((ctx) => {
      if (broken) ctx.skip('an earlier step failed');
    });
    afterEach((ctx) => {
      if (ctx.task.result?.state === 'fail') broken = true;
    });

    afterAll(async () => {
      await Promise.all([go?.stop(), ts?.stop()]);
      for (const { transport } of clients.values()) await transport.close();
      await kcp?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    function client(w: KcpWorkspace): ApiClient {
      let c = clients.get(w.name);
      if (!c) {
        const kc = new KubeConfig();
        kc.loadFromString(kcp.kubeconfig(w));
        const transport = Transport.forConfig(kc);
        c = { client: new ApiClient(transport, new DiscoveryRESTMapper(transport)), transport };
        clients.set(w.name, c);
      }
      return c.client;
    }

    const bind = (w: KcpWorkspace, waitReady = true) =>
      kcp.bind(w, { exportPath: 'root:provider', exportName: EXPORT, acceptClaims: CLAIMS, waitReady });

    /** Every ConfigMap of these workspaces as the server has it now, as the controllers should have last seen it. */
    async function serverState(engaged: KcpWorkspace[]): Promise<Record<string, Seen>> {
      const out: Record<string, Seen> = {};
      for (const w of [...engaged].sort((x, y) => x.name.localeCompare(y.name))) {
        const items = (await client(w).list(CONFIGMAP)).items.sort((x, y) =>
          `${x.metadata.namespace}/${x.metadata.name}`.localeCompare(`${y.metadata.namespace}/${y.metadata.name}`),
        );
        for (const cm of items) {
          out[`${w.name}|${cm.metadata.namespace}/${cm.metadata.name}`] = {
            found: true,
            resourceVersion: cm.metadata.resourceVersion!,
            content: (cm as { data?: unknown }).data ?? null,
          };
        }
      }
      return out;
    }

    const sortKeys = (state: Record<string, Seen>): Record<string, Seen> =>
      Object.fromEntries(Object.entries(state).sort(([x], [y]) => x.localeCompare(y)));

    const present = (state: Record<string, Seen>): Record<string, Seen> =>
      Object.fromEntries(Object.entries(state).filter(([, s]) => s.found));

    /** What a step must have changed: every object of a newly engaged cluster, every changed or deleted object. */
    function expectedChanges(before: Record<string, Seen>, after: Record<string, Seen>, engaged: string[]): string[] {
      const keys = new Set<string>();
      for (const [k, s] of Object.entries(after)) if (JSON.stringify(before[k]) !== JSON.stringify(s)) keys.add(k);
      for (const k of Object.keys(before)) if (!(k in after) && engaged.includes(k.split('|')[0]!)) keys.add(k);
      return [...keys].sort();
    }

    /**
     * Objects the Go side keeps after they were deleted while its watch was down: kcp-dev/apimachinery v2.32.0 (which
     * multicluster-provider v0.8.0 pins) keys its informer store with a function that rejects the tombstones a
     * relist produces, so deletions a relist finds are dropped and never reconciled (fixed by kcp-dev/kcp#4364, which
     * no released module carries yet). The TypeScript provider must not share the bug; the README lists it.
     */
    const goStale = new Map<string, Seen>();

    /**
     * Runs `act`, bumps the barrier in every workspace that should now be engaged, waits until both sides engaged
     * exactly those and reconciled every ConfigMap there at its current state, and compares what each changed.
     * `goDropsDeletionOf` names objects (`<workspace>|<namespace>/<name>`) the Go side is known to miss (goStale).
     */
    async function step(act: () => Promise<void>, engagedWs: KcpWorkspace[], goDropsDeletionOf: string[] = []): Promise<void> {
      for (const rel of goDropsDeletionOf) {
        const [w, key] = rel.split('|') as [string, string];
        const id = `${ws[w]!.name}|${key}`;
        goStale.set(id, lastState[id]!);
      }
      goObs.mark();
      tsObs.mark();
      await act();
      stepNo++;
      for (const w of engagedWs) {
        const body = { data: { step: String(stepNo) } };
        try {
          await client(w).patch(CONFIGMAP, { namespace: 'default', name: 'barrier' }, { type: 'merge', body });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          await client(w).create(configMap('barrier', body.data));
        }
      }
      const engaged = engagedWs.map((w) => w.name).sort();
      // The fake kcp's labeller may still be writing (claim labels bump resourceVersions): compare with the server's
      // state as it is at each check.
      let expected: Record<string, Seen> = {};
      for (const id of goStale.keys()) if (!engaged.includes(id.split('|')[0]!)) goStale.delete(id);
      const want = (o: Observation): Record<string, Seen> =>
        o === goObs ? sortKeys({ ...expected, ...Object.fromEntries(goStale) }) : expected;
      const converged = (o: Observation) =>
        JSON.stringify([...o.engaged].sort()) === JSON.stringify(engaged) && JSON.stringify(present(o.state())) === JSON.stringify(want(o));
      const explain = (o: Observation, log: string) =>
        [
          `${o.name}: engaged ${JSON.stringify([...o.engaged].sort())}, want ${JSON.stringify(engaged)} (names: ${JSON.stringify(names())})`,
          `state ${JSON.stringify(present(o.state()))}`,
          `want  ${JSON.stringify(want(o))}`,
          `${o.name} log:\n${log}`,
        ].join('\n');
      const deadline = Date.now() + SETTLE_MS;
      for (;;) {
        expected = await serverState(engagedWs);
        if (converged(goObs) && converged(tsObs)) break;
        for (const o of [goObs, tsObs]) if (o.failure) throw new Error(`${o.name}: ${o.failure}`);
        if (Date.now() > deadline) {
          const late = [goObs, tsObs].filter((o) => !converged(o));
          throw new Error(late.map((o) => explain(o, o === goObs ? (go?.logTail(60) ?? '') : (ts?.logTail(40) ?? ''))).join('\n\n'));
        }
        await goObs.changes(250);
      }

      const newlyEngaged = engaged.filter((c) => !lastEngaged.includes(c));
      const before = Object.fromEntries(Object.entries(lastState).filter(([k]) => !newlyEngaged.includes(k.split('|')[0]!)));
      const changes = expectedChanges(before, expected, engaged);
      expect(tsObs.changed()).toEqual(changes);
      expect(goObs.changed()).toEqual(
        changes.filter((k) => !goDropsDeletionOf.some((rel) => k === `${ws[rel.split('|')[0]!]!.name}|${rel.split('|')[1]}`)),
      );
      lastState = expected;
      lastEngaged = engaged;
    }

    const names = (): Record<string, string> => Object.fromEntries(Object.entries(ws).map(([k, w]) => [w.name, k]));

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
