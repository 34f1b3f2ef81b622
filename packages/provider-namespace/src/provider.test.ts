/**
 * NamespaceProvider against an in-memory API server: members are namespaces, and a member's client, cache, API
 * reader and event recorder reach only its own namespace; controllers get each member's events only.
 */
import {
  controllerManagedBy,
  isForbidden,
  newCluster,
  newManager,
  silentLogger,
  type KubeObject,
  type Manager,
  type Request,
} from '@multicluster-runtime/core';
import type { ApiClient } from '@multicluster-runtime/core/client';
import { kubeconfigOf } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterEach, describe, expect, test } from 'vitest';
import { NamespaceProvider, NamespaceScopeError } from './index.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const namespaces = { apiVersion: 'v1', kind: 'Namespace' } as const;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The host server, a manager over it with `provider`, and an admin client of the server (not through any member). */
async function fleet(provider: NamespaceProvider, ...names: string[]): Promise<{ server: ApiServer; mgr: Manager; admin: ApiClient }> {
  const server = await startApiServer({ name: 'host' });
  cleanups.push(() => server.close());
  const adminCluster = newCluster(kubeconfigOf(server), { name: 'admin' });
  cleanups.push(() => adminCluster.close());
  const admin = adminCluster.apiReader;
  const mgr = newManager(kubeconfigOf(server), provider, { logger: silentLogger });
  for (const name of names) await createNamespace(admin, name, { fleet: 'on' });
  return { server, mgr, admin };
}

async function createNamespace(admin: ApiClient, name: string, labels: Record<string, string>): Promise<void> {
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}

const state = (mgr: Manager, name: string) =>
  mgr.getCluster(name).then(
    () => 'engaged',
    () => 'absent',
  );

function start(mgr: Manager): void {
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
}

const configMap = (namespace: string, name: string, data: Record<string, string> = {}): KubeObject & { data: Record<string, string> } => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name },
  data,
});

describe('NamespaceProvider', () => {
  test('each labelled namespace is a member; a controller reconciles each member with its own objects only', async () => {
    const { mgr, admin } = await fleet(new NamespaceProvider({ labelSelector: 'fleet=on' }), 'team-a', 'team-b');
    await createNamespace(admin, 'unselected', {});
    const seen: Request[] = [];
    controllerManagedBy(mgr)
      .for(configMaps)
      .complete(async (req) => {
        seen.push(req);
      });
    start(mgr);
    await expect.poll(() => state(mgr, 'team-a')).toBe('engaged');
    await expect.poll(() => state(mgr, 'team-b')).toBe('engaged');
    await expect(mgr.getCluster('unselected')).rejects.toThrow(/not found/i);

    for (const ns of ['team-a', 'team-b', 'unselected']) await admin.create(configMap(ns, `cm-${ns}`));
    await expect
      .poll(() => seen.map((r) => `${r.clusterName} ${r.namespace}/${r.name}`).sort())
      .toEqual(['team-a team-a/cm-team-a', 'team-b team-b/cm-team-b']);
    // Nothing from the unselected namespace, nor from one member reaching the other, arrives later.
    await createNamespace(admin, 'marker', { fleet: 'on' });
    await expect.poll(() => state(mgr, 'marker')).toBe('engaged');
    expect(seen.every((r) => r.clusterName === r.namespace)).toBe(true);
  });

  test('a member cannot read or write another namespace, nor cluster-scoped kinds: 403 before anything is sent', async () => {
    const { mgr, server } = await fleet(new NamespaceProvider(), 'a', 'b');
    start(mgr);
    await expect.poll(() => state(mgr, 'b')).toBe('engaged');
    const a = await mgr.getCluster('a');
    const b = await mgr.getCluster('b');
    await b.client.create(configMap('b', 'secret-plans', { plan: 'b' }));
    const requestsBefore = server.stats().requests;

    const refusals: Promise<unknown>[] = [
      a.client.get(configMaps, { namespace: 'b', name: 'secret-plans' }),
      a.cache.get(configMaps, { namespace: 'b', name: 'secret-plans' }),
      a.apiReader.get(configMaps, { namespace: 'b', name: 'secret-plans' }),
      a.client.list(configMaps, { namespace: 'b' }),
      a.client.create(configMap('b', 'intruder')),
      a.client.update(configMap('b', 'secret-plans', { plan: 'a' })),
      a.client.patch(configMaps, { namespace: 'b', name: 'secret-plans' }, { type: 'merge', body: { data: { plan: 'a' } } }),
      a.client.apply(configMap('b', 'secret-plans', { plan: 'a' }), { fieldManager: 'a' }),
      a.client.delete(configMaps, { namespace: 'b', name: 'secret-plans' }),
      a.client.list(namespaces),
      a.client.get(namespaces, { name: 'b' }),
      a.cache.getInformer(namespaces),
    ];
    for (const refused of refusals) {
      const err = await refused.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NamespaceScopeError);
      expect(isForbidden(err)).toBe(true);
    }
    expect((await refusals[0]!.catch((e: Error) => e.message)) as string).toContain(
      'namespace member "a": ConfigMap "secret-plans" is in namespace "b"',
    );
    expect(server.stats().requests).toBe(requestsBefore); // refused before reaching the server
    expect(
      (await b.client.get<KubeObject & { data: Record<string, string> }>(configMaps, { namespace: 'b', name: 'secret-plans' })).data,
    ).toEqual({ plan: 'b' });
  });

  test('a member lists and writes its own namespace; an object without a namespace lands in it', async () => {
    const { mgr } = await fleet(new NamespaceProvider(), 'a', 'b');
    start(mgr);
    await expect.poll(() => state(mgr, 'b')).toBe('engaged');
    const a = await mgr.getCluster('a');
    const b = await mgr.getCluster('b');
    const created = await a.client.create<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-namespace' } });
    expect(created.metadata.namespace).toBe('a');
    await b.client.create(configMap('b', 'other'));
    await expect
      .poll(async () => (await a.client.list(configMaps)).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`))
      .toEqual(['a/no-namespace']);
    expect((await a.apiReader.list(configMaps)).items.map((o) => o.metadata.name)).toEqual(['no-namespace']);
    const informer = await a.cache.getInformer(configMaps);
    await expect.poll(() => informer.list().map((o) => o.metadata.name)).toEqual(['no-namespace']);
  });

  test('a namespace deleted or unlabelled is disengaged; labelled again, it is engaged again', async () => {
    const { mgr, admin } = await fleet(new NamespaceProvider({ labelSelector: { matchLabels: { fleet: 'on' } } }), 'a', 'gone');
    start(mgr);
    await expect.poll(() => state(mgr, 'gone')).toBe('engaged');
    await admin.delete(namespaces, { name: 'gone' });
    await expect.poll(() => state(mgr, 'gone')).toBe('absent');
    await admin.patch(namespaces, { name: 'a' }, { type: 'merge', body: { metadata: { labels: { fleet: null } } } });
    await expect.poll(() => state(mgr, 'a')).toBe('absent');
    await admin.patch(namespaces, { name: 'a' }, { type: 'merge', body: { metadata: { labels: { fleet: 'on' } } } });
    await expect.poll(() => state(mgr, 'a')).toBe('engaged');
  });

  test("Events go into the member's namespace; an Event about another namespace's object is not written", async () => {
    const { mgr, admin } = await fleet(new NamespaceProvider(), 'a', 'b');
    start(mgr);
    await expect.poll(() => state(mgr, 'b')).toBe('engaged');
    const a = await mgr.getCluster('a');
    const own = await a.client.create(configMap('a', 'own'));
    const recorder = a.getEventRecorderFor('example.com/test');
    recorder.event(own, 'Normal', 'Seen', 'own object');
    recorder.event(configMap('b', 'foreign'), 'Normal', 'Seen', 'foreign object');
    const events = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
    await expect
      .poll(async () => (await admin.list<KubeObject & { note?: string }>(events)).items.map((e) => `${e.metadata.namespace} ${e.note}`))
      .toEqual(['a own object']);
  });

  test('a bad label selector is refused at construction', () => {
    expect(() => new NamespaceProvider({ labelSelector: 'a in (' })).toThrow(/NamespaceProvider: labelSelector/);
    expect(() => new NamespaceProvider({ waitCacheTimeoutMs: -1 })).toThrow(/NamespaceProvider: options\.waitCacheTimeoutMs/);
    expect(() => new NamespaceProvider({ retry: { initialMs: 0 } })).toThrow(/options\.retry\.initialMs/);
    expect(() => new NamespaceProvider({ labelSelecter: 'a=b' } as never)).toThrow(/labelSelecter/);
  });
});
