/**
 * Events over HTTP on in-memory API servers, through a manager and a provider: a reconcile in cluster "east" records
 * 10 identical warnings; they become one events.k8s.io/v1 Event with a series in east (not in the host, not in west),
 * the last count written when east is disengaged; kubectl shows it there. The manager's recorder writes to the host.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { TestProvider } from '../builder/test-provider.test-util.js';
import { controllerManagedBy } from '../builder/builder.js';
import { ignoreNotFound } from '../client/errors.js';
import { configMap, configMaps, Fleet, kubeconfigOf } from '../controller/fleet.test-util.js';
import { silentLogger } from '../log/logger.js';
import { newManager } from '../manager/manager.js';
import { EVENTS, type EventObject } from './event-object.js';

const run = promisify(execFile);
const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));

const fleet = new Fleet();
const stops: { stop: AbortController; done: Promise<void> }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done;
  }
  await fleet.closeAll();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('events through the manager', () => {
  it('10 identical warnings are one Event with count 10 in the cluster the object lives in, flushed on disengage', async () => {
    const host = await fleet.member('host');
    const east = await fleet.member('east');
    const west = await fleet.member('west');
    const provider = new TestProvider();
    const mgr = newManager(kubeconfigOf(host.server), provider, { logger: silentLogger });
    const warned: string[] = [];
    controllerManagedBy(mgr)
      .named('warner')
      .for(configMaps)
      .complete(async (req, ctx) => {
        const cluster = await mgr.getCluster(req.clusterName);
        const cm = await cluster.client.get(configMaps, req, { signal: ctx.signal }).catch(ignoreNotFound);
        if (!cm || req.name !== 'broken') return;
        const recorder = cluster.getEventRecorderFor('example.com/warner');
        for (let i = 0; i < 10; i++) recorder.event(cm, 'Warning', 'InvalidConfig', 'key "port" is not a number', { action: 'Validate' });
        warned.push(req.clusterName);
      });
    const stop = new AbortController();
    stops.push({ stop, done: mgr.start(stop.signal) });
    await provider.add('east', east);
    await provider.add('west', west);
    await east.cluster.client.create(configMap('broken', { port: 'eighty' }));
    await expect.poll(() => warned).toEqual(['east']);

    // The first repeat makes it a series at once; the last count is written when east is disengaged.
    await provider.set.remove('east');
    const events = (await east.cluster.apiReader.list<EventObject>(EVENTS, { namespace: 'default' })).items;
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      type: 'Warning',
      reason: 'InvalidConfig',
      action: 'Validate',
      note: 'key "port" is not a number',
      reportingController: 'example.com/warner',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'broken' },
      series: { count: 10 },
    });
    expect((await west.cluster.apiReader.list(EVENTS)).items).toEqual([]);
    expect((await host.cluster.apiReader.list(EVENTS)).items).toEqual([]);

    if (KUBECTL) {
      const dir = await mkdtemp(join(tmpdir(), 'events-kubectl-'));
      dirs.push(dir);
      await writeFile(join(dir, 'kubeconfig'), east.server.kubeconfig());
      const kubectl = async (...args: string[]) =>
        (await run(KUBECTL, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], { timeout: 30_000 }))
          .stdout;
      const listed = JSON.parse(await kubectl('get', 'events.events.k8s.io', '-n', 'default', '-o', 'json')) as { items: EventObject[] };
      expect(listed.items.map((e) => [e.reason, e.series?.count, e.regarding.name])).toEqual([['InvalidConfig', 10, 'broken']]);
      expect(await kubectl('get', 'events.events.k8s.io', '-n', 'default')).toMatch(/InvalidConfig/);
    }
  });

  it("the manager's recorder writes into the host cluster", async () => {
    const host = await fleet.member('host');
    const mgr = newManager(kubeconfigOf(host.server), undefined, { logger: silentLogger });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const cm = await host.cluster.apiReader.create(configMap('settings'));
    mgr.getEventRecorderFor('example.com/host-controller').event(cm, 'Normal', 'Synced', 'all good');
    await expect
      .poll(async () => (await host.cluster.apiReader.list<EventObject>(EVENTS, { namespace: 'default' })).items.map((e) => e.reason))
      .toEqual(['Synced']);
    stop.abort();
    await done;
  });
});
