/**
 * Built-in workload and networking kinds, served by the in-memory server from the version's discovery: a sample
 * (Deployment, Service, Job, Pod) created, read, listed, deleted, and the Deployment's status subresource and
 * generation, with objects the real API server accepts (its validation runs on the real back end); and bodies read
 * as the real server's decoder reads them into their Go types (wrong types refused, unknown fields dropped or refused).
 */
import { expect, test, vi } from 'vitest';
import type { SuiteContext } from '../context.js';
import { expectStatus } from './helpers.js';

const labels = { app: 'web' };
const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27' }] };
const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
});

/** A create the real server's validation refuses: 422 Invalid, the kind named with its group (`Deployment.apps`, `Pod`). */
async function expectInvalidCreate(ctx: SuiteContext, path: string, body: Record<string, unknown>, message: string): Promise<void> {
  const apiVersion = body['apiVersion'] as string;
  const kind = apiVersion.includes('/') ? `${body['kind'] as string}.${apiVersion.split('/')[0]}` : (body['kind'] as string);
  const name = (body['metadata'] as { name: string }).name;
  expectStatus(await ctx.client.post(path, body), 422, 'Invalid', `${kind} "${name}" is invalid: ${message}`);
}

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

  test('built-ins: a status update without a status stores the zero status, as Go writes it', async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await ctx.client.post(path, deployment('web'));
    const withStatus = await ctx.client.put(`${path}/web/status`, { ...created.body, status: { observedGeneration: 1, replicas: 1 } });
    expect(withStatus.body.status).toMatchObject({ replicas: 1 });
    const { status: _status, ...withoutStatus } = withStatus.body;
    const cleared = await ctx.client.put(`${path}/web/status`, withoutStatus);
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.status).toEqual({});
    expect((await ctx.client.get(`${path}/web`)).body.status).toEqual({});
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

  test('built-ins: what the Go code defaults is filled in: workloads, pod templates, containers, Services, Jobs, Pods', async () => {
    const ns = await ctx.namespace();
    const template = { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
    const workload = (kind: string, name: string) => ({
      apiVersion: 'apps/v1',
      kind,
      metadata: { name },
      spec: { selector: { matchLabels: labels }, template },
    });
    const container = {
      name: 'web',
      image: 'nginx:1.27',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
    };
    const podSpecDefaults = {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
    };
    const defaultedTemplate = { metadata: { labels }, spec: { containers: [container], ...podSpecDefaults } };
    const created = async (path: string, body: unknown) => {
      const res = await ctx.client.post(path, body);
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const apps = `/apis/apps/v1/namespaces/${ns}`;
    const deployment = await created(`${apps}/deployments`, workload('Deployment', 'd'));
    expect({ spec: deployment.spec, status: deployment.status }).toEqual({
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: defaultedTemplate,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {},
    });
    const statefulSet = await created(`${apps}/statefulsets`, workload('StatefulSet', 's'));
    expect({ spec: statefulSet.spec, status: statefulSet.status }).toEqual({
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: defaultedTemplate,
        serviceName: '',
        podManagementPolicy: 'OrderedReady',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } },
        revisionHistoryLimit: 10,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      },
      status: { replicas: 0, availableReplicas: 0 },
    });
    const daemonSet = await created(`${apps}/daemonsets`, workload('DaemonSet', 'ds'));
    expect({ spec: daemonSet.spec, status: daemonSet.status }).toEqual({
      spec: {
        selector: { matchLabels: labels },
        template: defaultedTemplate,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        revisionHistoryLimit: 10,
      },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    });
    const replicaSet = await created(`${apps}/replicasets`, workload('ReplicaSet', 'rs'));
    expect({ spec: replicaSet.spec, status: replicaSet.status }).toEqual({
      spec: { replicas: 1, selector: { matchLabels: labels }, template: defaultedTemplate },
      status: { replicas: 0 },
    });

    const batch = `/apis/batch/v1/namespaces/${ns}`;
    const busybox = { name: 'c', image: 'busybox' };
    const cronJob = await created(`${batch}/cronjobs`, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [busybox] } } } },
      },
    });
    const busyboxDefaulted = { ...container, ...busybox, imagePullPolicy: 'Always' };
    expect(cronJob.spec).toEqual({
      schedule: '*/5 * * * *',
      concurrencyPolicy: 'Allow',
      suspend: false,
      jobTemplate: {
        metadata: {},
        spec: { template: { metadata: {}, spec: { ...podSpecDefaults, restartPolicy: 'OnFailure', containers: [busyboxDefaulted] } } },
      },
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    const pinned = { name: 'c', image: `busybox@sha256:${'0'.repeat(64)}` };
    const job = await created(`${batch}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [pinned] } } },
    });
    // The selector is made from the Job's uid; the Job's labels, defaulted from its template, show the generated ones too.
    const uid = job.metadata.uid as string;
    const generated = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'j',
      'controller-uid': uid,
      'job-name': 'j',
    };
    expect(job.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(job.spec.manualSelector).toBe(false);
    expect(job.spec.template.metadata.labels).toEqual({ ...labels, ...generated });
    expect(job.metadata.labels).toEqual({ ...labels, ...generated });
    const relabelled = await ctx.client.patch(`${batch}/jobs/j`, 'application/merge-patch+json', { metadata: { labels: { extra: 'x' } } });
    expect(relabelled.body.metadata.labels).toEqual({ ...labels, ...generated, extra: 'x' });
    expect(relabelled.body.spec.template.metadata.labels).toEqual({ ...labels, ...generated });
    expect(job.spec).toMatchObject({
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
    });
    expect(job.spec.template.spec.containers).toEqual([{ ...container, ...pinned }]);

    const service = await created(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: {
        selector: labels,
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 81, targetPort: 'http', protocol: 'UDP' },
        ],
      },
    });
    expect(service.spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster' });
    expect(service.spec.ports).toEqual([
      { name: 'a', protocol: 'TCP', port: 80, targetPort: 80 },
      { name: 'b', protocol: 'UDP', port: 81, targetPort: 'http' },
    ]);
    expect(service.status).toEqual({ loadBalancer: {} });

    const pod = await created(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'web', image: 'registry:5000/team/web', resources: { limits: { cpu: '1' } } }] },
    });
    expect(pod.spec.containers).toEqual([
      {
        ...container,
        image: 'registry:5000/team/web',
        imagePullPolicy: 'Always',
        resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
      },
    ]);
    expect(pod.spec).toMatchObject({ ...podSpecDefaults, enableServiceLinks: true });
  });

  test("built-ins: a Service gets a cluster IP and node ports from the cluster's ranges, and keeps them", async () => {
    const ns = await ctx.namespace();
    const path = `/api/v1/namespaces/${ns}/services`;
    const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
    const create = async (name: string, spec: Record<string, unknown>) => {
      const res = await ctx.client.post(path, service(name, spec));
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const refused = async (name: string, spec: Record<string, unknown>, message: string) => {
      expectStatus(await ctx.client.post(path, service(name, spec)), 422, 'Invalid', `Service "${name}" is invalid: ${message}`);
    };
    const ports = [{ port: 80 }];
    const inNodePortRange = (port: unknown) => typeof port === 'number' && port >= 30000 && port <= 32767;

    const web = await create('web', { selector: labels, ports });
    const ip = web.spec.clusterIP as string;
    expect(ip).toMatch(/^10\.0\.0\.([2-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-4])$/);
    expect(web.spec).toMatchObject({ clusterIPs: [ip], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    expect((await create('headless', { clusterIP: 'None', selector: labels, ports })).spec).toMatchObject({
      clusterIPs: ['None'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    // Without a selector a headless Service asks for both families, even of a single-stack cluster.
    expect((await create('headless-bare', { clusterIP: 'None', ports })).spec).toMatchObject({
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack',
    });
    expect((await create('name', { type: 'ExternalName', externalName: 'example.com' })).spec).toEqual({
      type: 'ExternalName',
      externalName: 'example.com',
      sessionAffinity: 'None',
    });
    const nodePort = await create('np', { type: 'NodePort', selector: labels, ports });
    const allocatedPort = nodePort.spec.ports[0].nodePort;
    expect(inNodePortRange(allocatedPort), String(allocatedPort)).toBe(true);
    const lb = await create('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: labels, ports });
    expect(inNodePortRange(lb.spec.healthCheckNodePort) && inNodePortRange(lb.spec.ports[0].nodePort), JSON.stringify(lb.spec)).toBe(true);
    expect(lb.spec.healthCheckNodePort).not.toBe(lb.spec.ports[0].nodePort);

    await refused(
      'taken',
      { clusterIP: ip, ports },
      `spec.clusterIPs: Invalid value: ["${ip}"]: failed to allocate IP ${ip}: provided IP is already allocated`,
    );
    await refused(
      'elsewhere',
      { clusterIP: '10.1.0.5', ports },
      'spec.clusterIPs: Invalid value: ["10.1.0.5"]: failed to allocate IP 10.1.0.5: the provided network does not match the current range',
    );
    await refused(
      'garbage',
      { clusterIP: 'abc', ports },
      'spec.clusterIPs[0]: Invalid value: "abc": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
    await refused(
      'np-taken',
      { type: 'NodePort', ports: [{ port: 80, nodePort: allocatedPort }] },
      `spec.ports[0].nodePort: Invalid value: ${allocatedPort}: provided port is already allocated`,
    );
    await refused(
      'np-low',
      { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] },
      'spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    await refused(
      'np-cluster',
      { ports: [{ port: 80, nodePort: 30001 }] },
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    );
    await refused(
      'name-ip',
      { type: 'ExternalName', externalName: 'example.com', clusterIP: '10.0.0.60' },
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    );

    // An update that leaves out what was allocated keeps it (a controller writing its own spec); changing it is refused.
    const rewritten = await ctx.client.put(`${path}/web`, {
      ...service('web', { selector: { app: 'other' }, ports }),
      metadata: web.metadata,
    });
    expect(rewritten.status, rewritten.text).toBe(200);
    expect(rewritten.body.spec).toMatchObject({ clusterIP: ip, clusterIPs: [ip], selector: { app: 'other' } });
    const moved = { ...rewritten.body, spec: { ...rewritten.body.spec, clusterIP: '10.0.0.77', clusterIPs: undefined } };
    expectStatus(
      await ctx.client.put(`${path}/web`, moved),
      422,
      'Invalid',
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.77"]: may not change once set',
    );
    const samePorts = await ctx.client.put(`${path}/np`, {
      ...service('np', { type: 'NodePort', selector: labels, ports }),
      metadata: nodePort.metadata,
    });
    expect(samePorts.body.spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: allocatedPort }]);

    // A type change drops what the new type does not use.
    const toName = await ctx.client.patch(`${path}/web`, 'application/merge-patch+json', {
      spec: { type: 'ExternalName', externalName: 'x.example' },
    });
    expect(toName.body.spec).toEqual({
      type: 'ExternalName',
      externalName: 'x.example',
      sessionAffinity: 'None',
      selector: { app: 'other' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    const toCluster = await ctx.client.patch(`${path}/np`, 'application/merge-patch+json', { spec: { type: 'ClusterIP' } });
    expect(toCluster.body.spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    expect(toCluster.body.spec.externalTrafficPolicy).toBeUndefined();
    expect(toCluster.body.spec.clusterIP).toBe(nodePort.spec.clusterIP);
  });

  test('built-ins: every cluster IP a Service holds has an IPAddress naming the Service, gone when the Service lets it go', async () => {
    const ns = await ctx.namespace();
    const path = `/api/v1/namespaces/${ns}/services`;
    const addresses = '/apis/networking.k8s.io/v1/ipaddresses';
    const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
    // The real allocator writes the IPAddress before the Service; the in-memory server one revision after it.
    const addressOf = (ip: string) =>
      vi.waitFor(
        async () => {
          const res = await ctx.client.get(`${addresses}/${ip}`);
          expect(res.status, res.text).toBe(200);
          return res.body;
        },
        { timeout: 10_000, interval: 50 },
      );
    const gone = (ip: string) =>
      vi.waitFor(async () => expect((await ctx.client.get(`${addresses}/${ip}`)).status).toBe(404), { timeout: 10_000, interval: 50 });
    const allocated = (name: string) => ({
      metadata: {
        name,
        labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' },
      },
    });

    expect(await addressOf('10.0.0.1')).toMatchObject({
      ...allocated('10.0.0.1'),
      spec: { parentRef: { resource: 'services', namespace: 'default', name: 'kubernetes' } },
    });
    const web = await ctx.client.post(path, service('web', { ports: [{ port: 80 }] }));
    expect(web.status, web.text).toBe(201);
    const ip = web.body.spec.clusterIP as string;
    const address = await addressOf(ip);
    expect(address).toMatchObject({ ...allocated(ip), spec: { parentRef: { resource: 'services', namespace: ns, name: 'web' } } });
    expect(address.spec.parentRef.group ?? '').toBe('');
    // A headless Service holds no address (asked after another Service's address came, which followed it).
    expect((await ctx.client.post(path, service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }))).status).toBe(201);
    const after = await ctx.client.post(path, service('after', { ports: [{ port: 80 }] }));
    await addressOf(after.body.spec.clusterIP as string);
    const listed = (await ctx.client.get(addresses)).body.items as any[];
    expect(
      listed
        .filter((a) => a.spec.parentRef.namespace === ns)
        .map((a) => a.spec.parentRef.name)
        .sort(),
    ).toEqual(['after', 'web']);

    // Turning into an ExternalName Service lets the address go; so does a delete.
    const toName = await ctx.client.patch(`${path}/web`, 'application/merge-patch+json', {
      spec: { type: 'ExternalName', externalName: 'x.example' },
    });
    expect(toName.status, toName.text).toBe(200);
    await gone(ip);
    const api = await ctx.client.post(path, service('api', { ports: [{ port: 80 }] }));
    const apiIp = api.body.spec.clusterIP as string;
    await addressOf(apiIp);
    expect((await ctx.client.delete(`${path}/api`)).status).toBe(200);
    // The address is free at once: a Service made right after the delete may ask for it.
    const again = await ctx.client.post(path, service('api-again', { clusterIP: apiIp, ports: [{ port: 80 }] }));
    expect(again.status, again.text).toBe(201);
    await vi.waitFor(
      async () =>
        expect((await ctx.client.get(`${addresses}/${apiIp}`)).body).toMatchObject({ spec: { parentRef: { name: 'api-again' } } }),
      { timeout: 10_000, interval: 50 },
    );
    expect((await ctx.client.delete(`${path}/api-again`)).status).toBe(200);
    await gone(apiIp);

    // An address an IPAddress holds for something other than a Service cannot be asked for.
    const held = new Set(((await ctx.client.get(addresses)).body.items as any[]).map((a) => a.metadata.name as string));
    const free = Array.from({ length: 100 }, (_, i) => `10.0.0.${250 - i}`).find((candidate) => !held.has(candidate))!;
    const reserved = await ctx.client.post(addresses, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: { name: free },
      spec: { parentRef: { group: 'gateway.networking.k8s.io', resource: 'gateways', namespace: ns, name: 'elsewhere' } },
    });
    expect(reserved.status, reserved.text).toBe(201);
    try {
      expectStatus(
        await ctx.client.post(path, service('wants-it', { clusterIP: free, ports: [{ port: 80 }] })),
        422,
        'Invalid',
        `Service "wants-it" is invalid: spec.clusterIPs: Invalid value: ["${free}"]: failed to allocate IP ${free}: provided IP is already allocated`,
      );
    } finally {
      await ctx.client.delete(`${addresses}/${free}`);
    }
  });

  test('built-ins: a new Pod is Pending with its QoS class, priority and default tolerations, and its spec is fixed', async () => {
    const ns = await ctx.namespace();
    const path = `/api/v1/namespaces/${ns}/pods`;
    const pod = (name: string, container: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'nginx', ...container }], ...spec },
    });
    const create = async (body: Record<string, unknown>) => {
      const res = await ctx.client.post(path, body);
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const defaultTolerations = [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ];
    // Whatever status a create asks for, a Pod starts Pending.
    const minimal = await create({ ...pod('minimal'), status: { phase: 'Running' } });
    expect(minimal.metadata.generation).toBe(1);
    expect(minimal.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(minimal.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority', tolerations: defaultTolerations });
    const qos = async (name: string, resources: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
      (await create(pod(name, { resources }, spec))).status.qosClass;
    expect(await qos('guaranteed', { limits: { cpu: '1', memory: '1Gi' } })).toBe('Guaranteed');
    expect(await qos('guaranteed-sum', { requests: { cpu: '1000m', memory: '1024Mi' }, limits: { cpu: 1, memory: '1Gi' } })).toBe(
      'Guaranteed',
    );
    expect(await qos('burstable', { requests: { cpu: '100m' } })).toBe('Burstable');
    expect(await qos('burstable-cpu-only', { limits: { cpu: '1' } })).toBe('Burstable');
    expect(
      await qos('burstable-init', { limits: { cpu: '1', memory: '1Gi' } }, { initContainers: [{ name: 'i', image: 'busybox' }] }),
    ).toBe('Burstable');
    const ownToleration = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 };
    expect((await create(pod('tolerant', {}, { tolerations: [ownToleration] }))).spec.tolerations).toEqual([
      ownToleration,
      defaultTolerations[1],
    ]);

    // A running Pod's spec is fixed but for images, deadline, added tolerations and grace.
    const image = await ctx.client.patch(`${path}/minimal`, 'application/strategic-merge-patch+json', {
      spec: { containers: [{ name: 'c', image: 'nginx:2' }] },
    });
    expect(image.status, image.text).toBe(200);
    expect(image.body.metadata.generation).toBe(2);
    expectStatus(
      await ctx.client.patch(`${path}/minimal`, 'application/merge-patch+json', { spec: { restartPolicy: 'Never' } }),
      422,
      'Invalid',
      /^Pod "minimal" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` \(only additions to existing tolerations\),`spec.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)/,
    );
    // A default toleration taken out comes back at the end.
    const removed = await ctx.client.patch(`${path}/minimal`, 'application/json-patch+json', [
      { op: 'remove', path: '/spec/tolerations/0' },
    ]);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.spec.tolerations).toEqual([defaultTolerations[1], defaultTolerations[0]]);
  });

  test('built-ins: quantities are stored as Go writes them back, whatever form they were sent in', async () => {
    const ns = await ctx.namespace();
    const sent: Record<string, unknown> = {
      a: 0.5,
      b: '1000m',
      c: '1024Mi',
      d: '1.5Gi',
      e: '1500',
      f: '2000',
      g: '2e3',
      h: '1200e-3',
      i: '0.3Gi',
      j: '100Ki',
      k: '512',
      l: '0.1',
      m: '12e6',
      n: '1G',
      o: 3,
      p: '0',
      q: '0.0000001m',
      r: '1Ei',
    };
    const quota = await ctx.client.post(`/api/v1/namespaces/${ns}/resourcequotas`, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: Object.fromEntries(Object.entries(sent).map(([k, v]) => [`requests.example.com/${k}`, v])) },
    });
    expect(quota.status, quota.text).toBe(201);
    const stored = Object.fromEntries(Object.entries(quota.body.spec.hard as Record<string, string>).map(([k, v]) => [k.split('/')[1], v]));
    expect(stored).toEqual({
      a: '500m',
      b: '1',
      c: '1Gi',
      d: '1536Mi',
      e: '1500',
      f: '2k',
      g: '2e3',
      h: '1200e-3',
      i: '322122547200m',
      j: '100Ki',
      k: '512',
      l: '100m',
      m: '12e6',
      n: '1G',
      o: '3',
      p: '0',
      q: '1m',
      r: '1Ei',
    });
  });

  test('built-ins: workloads, Jobs, Pods and Services that their Go validation refuses are refused, with its words', async () => {
    const ns = await ctx.namespace();
    const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
      metadata: { labels },
      spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
    });
    const refused = (path: string, body: Record<string, unknown>, message: string) => expectInvalidCreate(ctx, path, body, message);
    const apps = `/apis/apps/v1/namespaces/${ns}`;
    const workload = (kind: string, name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'apps/v1',
      kind,
      metadata: { name },
      spec,
    });
    const mismatch = 'spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`';
    await refused(
      `${apps}/deployments`,
      workload('Deployment', 'no-selector', { template: template({ app: 'a' }) }),
      `[spec.selector: Required value, ${mismatch}]`,
    );
    await refused(
      `${apps}/deployments`,
      workload('Deployment', 'other', { selector: { matchLabels: { app: 'b' } }, template: template({ app: 'a' }) }),
      mismatch,
    );
    await refused(
      `${apps}/deployments`,
      workload('Deployment', 'not-in', {
        selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }] },
        template: template({ app: 'a' }),
      }),
      mismatch,
    );
    await refused(
      `${apps}/deployments`,
      workload('Deployment', 'empty', { selector: {}, template: template({ app: 'a' }) }),
      'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
    );
    await refused(
      `${apps}/deployments`,
      workload('Deployment', 'everything', {
        replicas: -2,
        template: { metadata: { labels: { app: 'a' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c' }] } },
      }),
      `[spec.replicas: Invalid value: -2: must be greater than or equal to 0, spec.selector: Required value, ${mismatch}, spec.template.spec.containers[0].image: Required value, spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"]`,
    );
    const selector = { matchLabels: { app: 'a' } };
    await refused(
      `${apps}/deployments`,
      workload('Deployment', 'names', {
        selector,
        template: template(
          { app: 'a' },
          {
            containers: [
              { name: 'C_1', image: 'x' },
              { name: 'C_1', image: 'x' },
            ],
          },
        ),
      }),
      "[spec.template.spec.containers[0].name: Invalid value: \"C_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.template.spec.containers[1].name: Invalid value: \"C_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.template.spec.containers[1].name: Duplicate value: \"C_1\"]",
    );
    await refused(
      `${apps}/replicasets`,
      workload('ReplicaSet', 'empty', { selector: {}, template: template({ app: 'a' }) }),
      'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
    );
    await refused(
      `${apps}/statefulsets`,
      workload('StatefulSet', 'empty', { selector: {}, template: template({ app: 'a' }) }),
      'spec.selector: Invalid value: {}: empty selector is invalid for statefulset',
    );
    await refused(`${apps}/daemonsets`, workload('DaemonSet', 'bare', { template: template({ app: 'a' }) }), mismatch);
    await refused(
      `${apps}/daemonsets`,
      workload('DaemonSet', 'restarts', { selector, template: template({ app: 'a' }, { restartPolicy: 'OnFailure' }) }),
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    );

    // A workload's selector is fixed once created; its template must keep matching it.
    const created = await ctx.client.post(
      `${apps}/deployments`,
      workload('Deployment', 'web', { selector, template: template({ app: 'a', v: '1' }) }),
    );
    expect(created.status, created.text).toBe(201);
    expectStatus(
      await ctx.client.patch(`${apps}/deployments/web`, 'application/merge-patch+json', {
        spec: { selector: { matchLabels: { app: 'a', v: '1' } } },
      }),
      422,
      'Invalid',
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"a","v":"1"}}: field is immutable',
    );
    expectStatus(
      await ctx.client.patch(`${apps}/deployments/web`, 'application/merge-patch+json', {
        spec: { template: { metadata: { labels: { app: 'z' } } } },
      }),
      422,
      'Invalid',
      'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"z","v":"1"}: `selector` does not match template `labels`',
    );

    const job = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec });
    const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
    await refused(
      jobs,
      job('restarts', { template: template({}) }),
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    await refused(
      jobs,
      job('manual', {
        manualSelector: true,
        selector: { matchLabels: { a: 'b' } },
        template: template({ a: 'c' }, { restartPolicy: 'Never' }),
      }),
      'spec.template.metadata.labels: Invalid value: {"a":"c"}: `selector` does not match template `labels`',
    );

    const pod = (name: string, containers: unknown[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers } });
    const pods = `/api/v1/namespaces/${ns}/pods`;
    await refused(pods, pod('none', []), 'spec.containers: Required value');
    await refused(pods, pod('unnamed', [{ image: 'x' }]), 'spec.containers[0].name: Required value');
    await refused(
      pods,
      pod('two', [{ name: 'c' }, { name: 'c', image: 'x' }]),
      '[spec.containers[0].image: Required value, spec.containers[1].name: Duplicate value: "c"]',
    );

    const services = `/api/v1/namespaces/${ns}/services`;
    await refused(
      services,
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'portless' }, spec: { selector: { a: 'b' } } },
      'spec.ports: Required value',
    );
    const headless = await ctx.client.post(services, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'headless' },
      spec: { clusterIP: 'None', selector: { a: 'b' } },
    });
    expect(headless.status, headless.text).toBe(201);
  });

  test("built-ins: a Service's ports and a container's ports and environment are validated as the real server does", async () => {
    const ns = await ctx.namespace();
    const refused = (path: string, body: Record<string, unknown>, message: string) => expectInvalidCreate(ctx, path, body, message);
    const services = `/api/v1/namespaces/${ns}/services`;
    const service = (name: string, ports: unknown[]) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { selector: { a: 'b' }, ports },
    });
    const range = 'must be between 1 and 65535, inclusive';
    await refused(
      services,
      service('unnamed', [{ port: 80 }, { port: 81 }]),
      '[spec.ports[0].name: Required value, spec.ports[1].name: Required value]',
    );
    await refused(
      services,
      service('same-name', [
        { name: 'a', port: 80 },
        { name: 'a', port: 81 },
      ]),
      'spec.ports[1].name: Duplicate value: "a"',
    );
    await refused(
      services,
      service('same-port', [
        { name: 'a', port: 80 },
        { name: 'b', port: 80 },
      ]),
      'spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
    );
    await refused(
      services,
      service('zero', [{ port: 0 }]),
      `[spec.ports[0].port: Invalid value: 0: ${range}, spec.ports[0].targetPort: Invalid value: 0: ${range}]`,
    );
    await refused(services, service('far', [{ port: 80, targetPort: 70000 }]), `spec.ports[0].targetPort: Invalid value: 70000: ${range}`);
    await refused(
      services,
      service('target-name', [{ port: 80, targetPort: 'Http_1' }]),
      'spec.ports[0].targetPort: Invalid value: "Http_1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    );
    await refused(
      services,
      service('icmp', [{ port: 80, protocol: 'ICMP' }]),
      'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    );
    const dns = await ctx.client.post(
      services,
      service('dns', [
        { name: 'a', port: 53 },
        { name: 'b', port: 53, protocol: 'UDP' },
      ]),
    );
    expect(dns.status, dns.text).toBe(201);

    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = (name: string, container: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'x', ...container }] },
    });
    await refused(pods, pod('no-port', { ports: [{ name: 'http' }] }), 'spec.containers[0].ports[0].containerPort: Required value');
    await refused(
      pods,
      pod('same-port-name', {
        ports: [
          { name: 'http', containerPort: 80 },
          { name: 'http', containerPort: 81 },
        ],
      }),
      'spec.containers[0].ports[1].name: Duplicate value: "http"',
    );
    await refused(
      pods,
      pod('long-port-name', { ports: [{ name: 'averyveryverylongname', containerPort: 80 }] }),
      'spec.containers[0].ports[0].name: Invalid value: "averyveryverylongname": must be no more than 15 characters',
    );
    await refused(pods, pod('env-unnamed', { env: [{ value: 'v' }] }), 'spec.containers[0].env[0].name: Required value');
    await refused(
      pods,
      pod('env-both', { env: [{ name: 'A', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }),
      'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    );
  });

  test('built-ins: the server keeps the kubernetes Service and the system PriorityClasses it creates once it serves', async () => {
    const svc = await ctx.client.get('/api/v1/namespaces/default/services/kubernetes');
    expect(svc.status, svc.text).toBe(200);
    expect(svc.body.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    expect(svc.body.metadata.generation).toBeUndefined();
    expect(svc.body.spec).toEqual({
      clusterIP: '10.0.0.1',
      clusterIPs: ['10.0.0.1'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: Number(new URL(ctx.backend.url).port) }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
    });
    const classes = await ctx.client.get('/apis/scheduling.k8s.io/v1/priorityclasses');
    const system = (classes.body.items as any[])
      .filter((c) => String(c.metadata.name).startsWith('system-'))
      .map((c) => ({
        name: c.metadata.name,
        value: c.value,
        preemptionPolicy: c.preemptionPolicy,
        generation: c.metadata.generation,
        description: c.description,
      }));
    expect(system).toEqual([
      {
        name: 'system-cluster-critical',
        value: 2_000_000_000,
        preemptionPolicy: 'PreemptLowerPriority',
        generation: 1,
        description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
      },
      {
        name: 'system-node-critical',
        value: 2_000_001_000,
        preemptionPolicy: 'PreemptLowerPriority',
        generation: 1,
        description: 'Used for system critical pods that must not be moved from their current node.',
      },
    ]);
  });

  test('built-ins: metadata.generation is kept for the kinds whose Go strategy keeps it, and raised as theirs is', async () => {
    const ns = await ctx.namespace();
    /** Creates, then updates with `change` applied; answers the generation after each. */
    const generations = async (path: string, body: Record<string, any>, change: (o: Record<string, any>) => void) => {
      const created = await ctx.client.post(path, body);
      expect(created.status, created.text).toBe(201);
      const next = structuredClone(created.body);
      change(next);
      const updated = await ctx.client.put(`${path}/${body.metadata.name}`, next);
      expect(updated.status, updated.text).toBe(200);
      return [created.body.metadata.generation, updated.body.metadata.generation];
    };
    // A Service has a status endpoint and no generation.
    expect(
      await generations(
        `/api/v1/namespaces/${ns}/services`,
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } },
        (o) => {
          o.spec.ports[0].port = 81;
        },
      ),
    ).toEqual([undefined, undefined]);
    // A PriorityClass has no status endpoint, and a generation that a change does not raise.
    expect(
      await generations(
        '/apis/scheduling.k8s.io/v1/priorityclasses',
        { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: `gen-${ns}` }, value: 7 },
        (o) => {
          o.description = 'changed';
        },
      ),
    ).toEqual([1, 1]);
    await ctx.client.delete(`/apis/scheduling.k8s.io/v1/priorityclasses/gen-${ns}`);
    // A NetworkPolicy has no status endpoint, and its spec raises its generation.
    expect(
      await generations(
        `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`,
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny' }, spec: { podSelector: {} } },
        (o) => {
          o.spec.podSelector = { matchLabels: labels };
        },
      ),
    ).toEqual([1, 2]);
    // A Deployment's annotations raise it too; a ConfigMap never has one.
    expect(
      await generations(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('web'), (o) => {
        o.metadata.annotations = { note: 'x' };
      }),
    ).toEqual([1, 2]);
    expect(
      await generations(
        `/api/v1/namespaces/${ns}/configmaps`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } },
        (o) => {
          o.data.a = '2';
        },
      ),
    ).toEqual([undefined, undefined]);
  });

  test('built-ins: a Pod takes its priority and preemption policy from its PriorityClass, or is refused', async () => {
    const ns = await ctx.namespace();
    const classes = '/apis/scheduling.k8s.io/v1/priorityclasses';
    const high = `high-${ns}`;
    const pc = await ctx.client.post(classes, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: high },
      value: 1000,
    });
    expect(pc.status, pc.text).toBe(201);
    expect(pc.body.preemptionPolicy).toBe('PreemptLowerPriority');
    const never = `never-${ns}`;
    expect(
      (
        await ctx.client.post(classes, {
          apiVersion: 'scheduling.k8s.io/v1',
          kind: 'PriorityClass',
          metadata: { name: never },
          value: 10,
          preemptionPolicy: 'Never',
        })
      ).status,
    ).toBe(201);
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
    });
    const priorityOf = async (name: string, spec: Record<string, unknown>) => {
      const res = await ctx.client.post(pods, pod(name, spec));
      expect(res.status, res.text).toBe(201);
      const { priority, priorityClassName, preemptionPolicy } = res.body.spec;
      return { priority, priorityClassName, preemptionPolicy };
    };
    // The real Priority plugin reads classes from an informer: a class created a moment ago may not be in it yet.
    const whenClassesSeen = async (name: string, spec: Record<string, unknown>) => {
      await expect.poll(async () => (await ctx.client.post(pods, pod(name, spec))).status, { timeout: 10_000 }).toBe(201);
      const { priority, priorityClassName, preemptionPolicy } = (await ctx.client.get(`${pods}/${name}`)).body.spec;
      return { priority, priorityClassName, preemptionPolicy };
    };
    expect(await whenClassesSeen('high', { priorityClassName: high })).toEqual({
      priority: 1000,
      priorityClassName: high,
      preemptionPolicy: 'PreemptLowerPriority',
    });
    expect(await whenClassesSeen('never', { priorityClassName: never })).toEqual({
      priority: 10,
      priorityClassName: never,
      preemptionPolicy: 'Never',
    });
    expect(await priorityOf('node', { priorityClassName: 'system-node-critical' })).toEqual({
      priority: 2000001000,
      priorityClassName: 'system-node-critical',
      preemptionPolicy: 'PreemptLowerPriority',
    });
    // Stating what the class gives is allowed; stating anything else is not.
    expect((await priorityOf('stated', { priorityClassName: high, priority: 1000 })).priority).toBe(1000);
    const refused = async (name: string, spec: Record<string, unknown>, why: string) =>
      expectStatus(await ctx.client.post(pods, pod(name, spec)), 403, 'Forbidden', `pods "${name}" is forbidden: ${why}`);
    await refused('missing', { priorityClassName: `missing-${ns}` }, `no PriorityClass with name missing-${ns} was found`);
    await refused(
      'guess',
      { priority: 5 },
      'the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
    await refused(
      'policy',
      { priorityClassName: never, preemptionPolicy: 'PreemptLowerPriority' },
      'the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
    // A global default class is every class-less pod's (removed at once: the other cases' pods must not get it).
    const fallback = `default-${ns}`;
    expect(
      (
        await ctx.client.post(classes, {
          apiVersion: 'scheduling.k8s.io/v1',
          kind: 'PriorityClass',
          metadata: { name: fallback },
          value: 7,
          globalDefault: true,
        })
      ).status,
    ).toBe(201);
    // Each attempt a new class-less pod, until the plugin has seen the class come (and, after, go).
    let attempt = 0;
    const plain = () => priorityOf(`plain-${++attempt}`, {});
    try {
      await expect
        .poll(plain, { timeout: 10_000 })
        .toEqual({ priority: 7, priorityClassName: fallback, preemptionPolicy: 'PreemptLowerPriority' });
    } finally {
      expect((await ctx.client.delete(`${classes}/${fallback}`)).status).toBe(200);
      await expect.poll(async () => (await plain()).priority, { timeout: 10_000 }).toBe(0);
    }
    for (const name of [high, never]) await ctx.client.delete(`${classes}/${name}`);
  });

  test('built-ins: a body is read into its Go type: a value of the wrong type is a 400 naming the Go field', async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const cannot = 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal';
    const withSpec = (spec: Record<string, unknown>) => ({ ...deployment('bad'), spec: { ...deployment('bad').spec, ...spec } });
    expectStatus(
      await ctx.client.post(path, withSpec({ replicas: '3' })),
      400,
      'BadRequest',
      `${cannot} string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    expectStatus(
      await ctx.client.post(path, withSpec({ replicas: 1.5 })),
      400,
      'BadRequest',
      `${cannot} number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    expectStatus(
      await ctx.client.post(path, withSpec({ selector: { matchLabels: { app: 1 } } })),
      400,
      'BadRequest',
      `${cannot} number into Go struct field LabelSelector.spec.selector.matchLabels of type string`,
    );
    expectStatus(
      await ctx.client.post(path, withSpec({ replicas: 3_000_000_000 })),
      400,
      'BadRequest',
      `${cannot} number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    const service = (port: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: labels, ports: [{ port: 80, ...port }] },
    });
    expectStatus(
      await ctx.client.post(`/api/v1/namespaces/${ns}/services`, service({ targetPort: true })),
      400,
      'BadRequest',
      'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
    const badPort = {
      metadata: { labels },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 'http' }] }] },
    };
    expectStatus(
      await ctx.client.post(path, withSpec({ template: badPort })),
      400,
      'BadRequest',
      `${cannot} string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32`,
    );
    expectStatus(
      await ctx.client.post(path, withSpec({ template: { metadata: { labels }, spec: { containers: { name: 'web' } } } })),
      400,
      'BadRequest',
      `${cannot} object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container`,
    );
    const cm = (metadata: Record<string, unknown>, data: unknown) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data });
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    expectStatus(
      await ctx.client.post(cms, cm({ name: 'c', labels: 'web' }, {})),
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    );
    expectStatus(
      await ctx.client.post(cms, cm({ name: 'c' }, { a: 1 })),
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    const pod = (limits: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', resources: { limits } }] },
    });
    expectStatus(
      await ctx.client.post(`/api/v1/namespaces/${ns}/pods`, pod({ cpu: 'lots' })),
      400,
      'BadRequest',
      'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    );
    expect((await ctx.client.get(path)).body.items).toEqual([]);
    expect((await ctx.client.post(`/api/v1/namespaces/${ns}/pods`, pod({ cpu: 0.5, memory: '1Gi' }))).status).toBe(201);
    // A null map value is the item type's zero value; the Service's ports take the protocol the schema defaults.
    expect((await ctx.client.post(cms, cm({ name: 'c' }, { a: null, b: 'x' }))).body.data).toEqual({ a: '', b: 'x' });
    const named = await ctx.client.post(`/api/v1/namespaces/${ns}/services`, service({ targetPort: 'http' }));
    expect(named.body.spec.ports[0]).toMatchObject({ port: 80, protocol: 'TCP', targetPort: 'http' });
  });

  test('built-ins: unknown fields are dropped with a warning by default, silently under Ignore, and refused under Strict', async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const sloppy = (name: string) => {
      const d = deployment(name);
      const container = { ...podSpec.containers[0], bogus: 1 };
      return { ...d, spec: { ...d.spec, template: { metadata: { labels }, spec: { containers: [container] } }, extra: true } };
    };
    const strict = await ctx.client.post(path, sloppy('strict'), { fieldValidation: 'Strict' });
    expectStatus(
      strict,
      400,
      'BadRequest',
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].bogus", unknown field "spec.extra"',
    );
    const warned = await ctx.client.post(path, sloppy('warned'));
    expect(warned.status, warned.text).toBe(201);
    expect(warned.headers['warning']).toBe(
      '299 - "unknown field \\"spec.template.spec.containers[0].bogus\\"", 299 - "unknown field \\"spec.extra\\""',
    );
    expect(warned.body.spec.extra).toBeUndefined();
    expect(warned.body.spec.template.spec.containers[0].bogus).toBeUndefined();
    const ignored = await ctx.client.post(path, sloppy('ignored'), { fieldValidation: 'Ignore' });
    expect(ignored.status).toBe(201);
    expect(ignored.headers['warning']).toBeUndefined();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', bogus: 1 }, data: {}, zed: 2 };
    expectStatus(
      await ctx.client.post(`/api/v1/namespaces/${ns}/configmaps`, cm, { fieldValidation: 'Strict' }),
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "zed"',
    );
  });

  test('built-ins: many unknown fields make a bounded Warning header (about 4 KiB of text)', async () => {
    const ns = await ctx.namespace();
    const fields = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`an-unknown-field-with-a-long-name-${i}`, i]));
    const res = await ctx.client.post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'noisy' },
      ...fields,
    });
    expect(res.status, res.text).toBe(201);
    const header = String(res.headers['warning']);
    expect(header.startsWith('299 - "unknown field \\"an-unknown-field-with-a-long-name-0\\""')).toBe(true);
    // Added while less than 4 KiB of text was written: items 0 to 78 (4,098 characters), the rest left out.
    const names = [...header.matchAll(/name-(\d+)/g)].map((m) => Number(m[1]));
    expect(names).toEqual(Array.from({ length: 79 }, (_, i) => i));
  });

  test('built-ins: a patched object that does not decode is 422 on the field patch; an apply that does not fit its type is 500', async () => {
    const ns = await ctx.namespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    expect((await ctx.client.post(path, deployment('web'))).status).toBe(201);
    const wrongType = 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32';
    for (const [contentType, patch] of [
      ['application/merge-patch+json', { spec: { replicas: 'x' } }],
      ['application/json-patch+json', [{ op: 'replace', path: '/spec/replicas', value: 'x' }]],
    ] as const) {
      const res = await ctx.client.patch(`${path}/web`, contentType, patch);
      expectStatus(res, 422, 'Invalid');
      expect(res.body.message, contentType).toMatch(/^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal string/);
      expect(res.body.message).toContain(wrongType);
      expect(res.body.details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueInvalid', field: 'patch' })]);
    }
    const strict = await ctx.client.patch(
      `${path}/web`,
      'application/merge-patch+json',
      { spec: { zzz: 1 } },
      { fieldValidation: 'Strict' },
    );
    expectStatus(strict, 422, 'Invalid');
    expect(strict.body.message).toMatch(/": strict decoding error: unknown field "spec.zzz"$/);
    const status = { ...deployment('web'), status: { replicas: 'x' } };
    const statusPut = await ctx.client.put(`${path}/web/status`, status);
    expect(statusPut.status).toBe(400);
    expect(statusPut.body.message).toContain('cannot unmarshal string into Go struct field DeploymentStatus.status.replicas of type int32');

    const apply = (spec: Record<string, unknown>) =>
      ctx.client.patch(
        `${path}/web`,
        'application/apply-patch+yaml',
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec },
        {
          fieldManager: 'conformance',
        },
      );
    const unknown = await apply({ zzz: 1 });
    expect(unknown.status).toBe(500);
    expect(unknown.body.message).toBe(
      'failed to create typed patch object (/web; apps/v1, Kind=Deployment): .spec.zzz: field not declared in schema',
    );
    const typed = await apply({ replicas: 'x' });
    expect(typed.status).toBe(500);
    expect(typed.body.message).toBe(
      'failed to create typed patch object (/web; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string',
    );
    expect((await ctx.client.get(`${path}/web`)).body.spec.replicas).toBe(1);
  });
}
