/**
 * Built-in workload and networking kinds, served by the in-memory server from the version's discovery: a sample
 * (Deployment, Service, Job, Pod) created, read, listed, deleted, and the Deployment's status subresource and
 * generation, with objects the real API server accepts (its validation runs on the real back end).
 */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';

const labels = { app: 'web' };
const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27' }] };
const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
});

export function builtinCases(ctx: SuiteContext): void {
  test('built-ins: discovery lists Deployments, Services, Jobs and Pods with their short names and status subresources', async () => {
    const core = new Map(((await ctx.client.get('/api/v1')).body.resources as any[]).map((r) => [r.name, r]));
    const apps = new Map(((await ctx.client.get('/apis/apps/v1')).body.resources as any[]).map((r) => [r.name, r]));
    const batch = new Map(((await ctx.client.get('/apis/batch/v1')).body.resources as any[]).map((r) => [r.name, r]));
    expect(apps.get('deployments')).toMatchObject({ kind: 'Deployment', namespaced: true, shortNames: ['deploy'] });
    expect(apps.get('deployments/status')).toMatchObject({ kind: 'Deployment' });
    expect(core.get('services')).toMatchObject({ kind: 'Service', namespaced: true, shortNames: ['svc'] });
    expect(core.get('pods')).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'] });
    expect(core.get('pods/status')).toMatchObject({ kind: 'Pod' });
    expect(batch.get('jobs')).toMatchObject({ kind: 'Job', namespaced: true });
  });

  test('built-ins: a Deployment keeps status to /status, and its generation follows spec changes only', async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await ctx.client.post(path, deployment('web'));
    expect(created.status).toBe(201);
    expect(created.body.metadata.generation).toBe(1);
    expect(created.body.status ?? {}).toEqual({});

    const withStatus = { ...created.body, status: { observedGeneration: 1, replicas: 1 } };
    const statusPut = await ctx.client.put(`${path}/web/status`, withStatus);
    expect(statusPut.status).toBe(200);
    expect(statusPut.body.status).toMatchObject({ observedGeneration: 1, replicas: 1 });
    expect(statusPut.body.metadata.generation).toBe(1);

    // Through the main endpoint, status is ignored and a spec change bumps the generation.
    const scaled = { ...statusPut.body, spec: { ...statusPut.body.spec, replicas: 3 }, status: { replicas: 99 } };
    const put = await ctx.client.put(`${path}/web`, scaled);
    expect(put.status).toBe(200);
    expect(put.body.spec.replicas).toBe(3);
    expect(put.body.metadata.generation).toBe(2);
    expect(put.body.status).toMatchObject({ observedGeneration: 1, replicas: 1 });

    const relabelled = { ...put.body, metadata: { ...put.body.metadata, labels: { tier: 'front' } } };
    expect((await ctx.client.put(`${path}/web`, relabelled)).body.metadata.generation).toBe(2);
  });

  test('built-ins: a Deployment scales through /scale (autoscaling/v1 Scale): get, update, patch, stale resourceVersion', async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await ctx.client.post(path, deployment('web', 1));
    expect(created.status).toBe(201);
    const apps = new Map(((await ctx.client.get('/apis/apps/v1')).body.resources as any[]).map((r) => [r.name, r]));
    expect(apps.get('deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });

    const scale = await ctx.client.get(`${path}/web/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: ns, uid: created.body.metadata.uid, resourceVersion: created.body.metadata.resourceVersion },
      spec: { replicas: 1 },
      status: { replicas: 0, selector: 'app=web' },
    });

    const put = await ctx.client.put(`${path}/web/scale`, { ...scale.body, spec: { replicas: 3 } });
    expect(put.status).toBe(200);
    expect(put.body.spec.replicas).toBe(3);
    const after = (await ctx.client.get(`${path}/web`)).body;
    expect(after.spec.replicas).toBe(3);
    expect(after.metadata.generation).toBe(2);
    expect(after.metadata.resourceVersion).toBe(put.body.metadata.resourceVersion);

    const patched = await ctx.client.patch(`${path}/web/scale`, 'application/merge-patch+json', { spec: { replicas: 2 } });
    expect(patched.status).toBe(200);
    expect((await ctx.client.get(`${path}/web`)).body.spec.replicas).toBe(2);

    // The Scale's resourceVersion is a precondition on the Deployment.
    expect((await ctx.client.put(`${path}/web/scale`, { ...scale.body, spec: { replicas: 5 } })).status).toBe(409);
    const negative = await ctx.client.put(`${path}/web/scale`, { ...patched.body, spec: { replicas: -1 } });
    expect(negative.status).toBe(422);
    expect((await ctx.client.get(`${path}/missing/scale`)).status).toBe(404);
    expect((await ctx.client.get(`/api/v1/namespaces/${ns}/configmaps/web/scale`)).status).toBe(404);
  });

  test("built-ins: a strategic merge patch merges a Deployment's containers by name and their env by name", async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const two = {
      ...deployment('pair'),
      spec: {
        ...deployment('pair').spec,
        template: {
          metadata: { labels },
          spec: {
            containers: [
              { name: 'web', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }] },
              { name: 'sidecar', image: 'busybox:1.36' },
            ],
          },
        },
      },
    };
    expect((await ctx.client.post(path, two)).status).toBe(201);
    const patch = {
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28', env: [{ name: 'B', value: '2' }] }] } } },
    };
    const res = await ctx.client.patch(`${path}/pair`, 'application/strategic-merge-patch+json', patch);
    expect(res.status, res.text).toBe(200);
    const containers = res.body.spec.template.spec.containers as { name: string; image: string; env?: { name: string }[] }[];
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['web', 'nginx:1.28'],
      ['sidecar', 'busybox:1.36'],
    ]);
    expect(containers[0]!.env?.map((e) => e.name)).toEqual(['B', 'A']);
  });

  test('built-ins: a Service, a Job and a Pod are created, listed and deleted', async () => {
    const ns = await ctx.namespace();
    const objects: [string, Record<string, unknown>][] = [
      [
        `/api/v1/namespaces/${ns}/services`,
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: labels, ports: [{ port: 80 }] } },
      ],
      [
        `/apis/batch/v1/namespaces/${ns}/jobs`,
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'once' },
          spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } },
        },
      ],
      [`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', labels }, spec: podSpec }],
    ];
    for (const [path, body] of objects) {
      const name = (body['metadata'] as { name: string }).name;
      const created = await ctx.client.post(path, body);
      expect(created.status, path).toBe(201);
      expect(created.body).toMatchObject({ kind: body['kind'], metadata: { name, namespace: ns } });
      const list = await ctx.client.get(path);
      expect(list.body.kind).toBe(`${body['kind'] as string}List`);
      expect(list.body.items.map((i: any) => i.metadata.name)).toEqual([name]);
      // Background: a Job's default is to orphan its pods, which leaves it for the garbage collector (not running here).
      const deleted = await ctx.client.delete(`${path}/${name}`, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Background',
      });
      expect(deleted.status, path).toBe(200);
      await expect.poll(async () => (await ctx.client.get(`${path}/${name}`)).status, { timeout: 10_000 }).toBe(404);
    }
  });
}
