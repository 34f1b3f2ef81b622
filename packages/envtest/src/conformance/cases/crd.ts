/** CustomResourceDefinitions: validation, async Established, discovery, CR semantics, and deletion cascade. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { expectStatus } from './helpers.js';

export function widgetCrd(group: string, opts: { status?: boolean; printerColumns?: boolean } = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(opts.status === false ? {} : { subresources: { status: {} } }),
          ...(opts.printerColumns
            ? {
                additionalPrinterColumns: [
                  { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
                  { name: 'Color', type: 'string', jsonPath: '.spec.color' },
                ],
              }
            : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', default: 'blue' } } },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** Creates the CRD and waits until its resource is in discovery. Returns the group. */
export async function installWidgets(ctx: SuiteContext, opts: { status?: boolean; printerColumns?: boolean } = {}): Promise<string> {
  const group = `${ctx.unique('g')}.example.com`;
  const res = await ctx.client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd(group, opts));
  expect(res.status, res.text).toBe(201);
  await expect
    .poll(
      async () => {
        const d = await ctx.client.get(`/apis/${group}/v1`);
        return d.status === 200 ? d.body.resources.map((r: any) => r.name) : [];
      },
      { timeout: 15_000, interval: 50 },
    )
    .toContain('widgets');
  return group;
}

const widget = (group: string, name: string, spec: Record<string, unknown> = { size: 1 }): Record<string, unknown> => ({
  apiVersion: `${group}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec,
});

export function crdCases(ctx: SuiteContext): void {
  test('crd: an invalid CRD is 422 (name must be plural.group)', async () => {
    const crd = widgetCrd('bad.example.com');
    (crd['metadata'] as any).name = 'wrong.bad.example.com';
    const res = await ctx.client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expectStatus(res, 422, 'Invalid');
    expect(res.body.message).toContain('must be spec.names.plural+"."+spec.group');
  });

  test('crd: becomes Established (a MODIFIED event) and its resource appears in discovery', async () => {
    const group = `${ctx.unique('est')}.example.com`;
    const start = (await ctx.client.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).body.metadata.resourceVersion;
    const w = await ctx.client.watch('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      resourceVersion: start,
      fieldSelector: `metadata.name=widgets.${group}`,
    });
    try {
      const res = await ctx.client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd(group));
      expect(res.status).toBe(201);
      const events = await w.until(
        (e) => e.object.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True'),
        15_000,
      );
      expect(events[0]!.type).toBe('ADDED');
      expect(events[events.length - 1]!.type).toBe('MODIFIED');
      // Established does not mean discovery has caught up: the real server's discovery follows a moment later.
      await expect
        .poll(async () => (await ctx.client.get('/apis')).body.groups.map((g: any) => g.name), { timeout: 15_000, interval: 50 })
        .toContain(group);
      await expect.poll(async () => (await ctx.client.get(`/apis/${group}/v1`)).status, { timeout: 15_000, interval: 50 }).toBe(200);
      const list = await ctx.client.get(`/apis/${group}/v1`);
      expect(list.body.resources).toContainEqual(
        expect.objectContaining({ name: 'widgets', kind: 'Widget', namespaced: true, shortNames: ['wd'] }),
      );
      expect(list.body.resources).toContainEqual(expect.objectContaining({ name: 'widgets/status' }));
    } finally {
      w.close();
    }
  });

  test('cr: generation is 1 on create and moves on spec changes only; status has its own endpoint', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const created = await ctx.client.post(base, { ...widget(group, 'w'), status: { ready: true } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.generation).toBe(1);
    expect(created.body.status).toBeUndefined();
    const spec2 = await ctx.client.put(`${base}/w`, { ...created.body, spec: { size: 2 }, status: { ready: true } });
    expect(spec2.status).toBe(200);
    expect(spec2.body.metadata.generation).toBe(2);
    expect(spec2.body.status).toBeUndefined();
    const labelOnly = await ctx.client.put(`${base}/w`, { ...spec2.body, metadata: { ...spec2.body.metadata, labels: { a: 'b' } } });
    expect(labelOnly.body.metadata.generation).toBe(2);
    const status = await ctx.client.put(`${base}/w/status`, { ...labelOnly.body, spec: { size: 99 }, status: { ready: true } });
    expect(status.status).toBe(200);
    expect(status.body.status).toEqual({ ready: true });
    expect(status.body.spec.size).toBe(2);
    expect(status.body.metadata.generation).toBe(2);
    expect(Number(status.body.metadata.resourceVersion)).toBeGreaterThan(Number(labelOnly.body.metadata.resourceVersion));
  });

  test('cr: subresources.scale serves /scale at the declared paths, with the selector from status', async () => {
    const group = `${ctx.unique('s')}.example.com`;
    const crd = widgetCrd(group);
    const version = (crd['spec'] as any).versions[0];
    version.subresources = {
      status: {},
      scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.count', labelSelectorPath: '.status.selector' },
    };
    version.schema.openAPIV3Schema.properties.status.properties = { count: { type: 'integer' }, selector: { type: 'string' } };
    expect((await ctx.client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    await expect
      .poll(async () => ((await ctx.client.get(`/apis/${group}/v1`)).body?.resources ?? []).map((r: any) => r.name), {
        timeout: 15_000,
        interval: 50,
      })
      .toContain('widgets/scale');
    const ns = await ctx.namespace();
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const created = await ctx.client.post(path, widget(group, 'w', { size: 2 }));
    expect(created.status).toBe(201);
    const withStatus = await ctx.client.put(`${path}/w/status`, { ...created.body, status: { count: 1, selector: 'app=w' } });
    expect(withStatus.status).toBe(200);
    const scale = await ctx.client.get(`${path}/w/scale`);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=w' },
    });
    const put = await ctx.client.put(`${path}/w/scale`, { ...scale.body, spec: { replicas: 5 } });
    expect(put.status).toBe(200);
    const after = (await ctx.client.get(`${path}/w`)).body;
    expect(after.spec).toMatchObject({ size: 5, color: 'blue' });
    expect(after.status).toEqual({ count: 1, selector: 'app=w' });
  });

  test('cr: a body without kind or apiVersion is 400 (no defaulting from the URL, unlike built-ins)', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const noKind = await ctx.client.post(base, { apiVersion: `${group}/v1`, metadata: { name: 'k' }, spec: { size: 1 } });
    expectStatus(
      noKind,
      400,
      'BadRequest',
      /^the object provided is unrecognized \(must be of type Widget\): Object 'Kind' is missing in '\{/,
    );
    const noVersion = await ctx.client.post(base, { kind: 'Widget', metadata: { name: 'v' }, spec: { size: 1 } });
    expectStatus(noVersion, 400, 'BadRequest', `the API version in the data () does not match the expected API version (${group}/v1)`);
  });

  test('cr: an update without resourceVersion is 422', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const created = (await ctx.client.post(base, widget(group, 'w'))).body;
    const { resourceVersion: _rv, ...meta } = created.metadata;
    const res = await ctx.client.put(`${base}/w`, { ...created, metadata: meta, spec: { size: 5 } });
    expectStatus(res, 422, 'Invalid');
    expect(res.body.message).toBe(
      `widgets.${group} "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
    );
  });

  test('cr: strategic merge patch is 415; merge patch works', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await ctx.client.post(base, widget(group, 'w'));
    const smp = await ctx.client.patch(`${base}/w`, 'application/strategic-merge-patch+json', { spec: { size: 3 } });
    expectStatus(smp, 415, 'UnsupportedMediaType');
    const merge = await ctx.client.patch(`${base}/w`, 'application/merge-patch+json', { spec: { size: 3 } });
    expect(merge.status).toBe(200);
    expect(merge.body.spec.size).toBe(3);
  });

  test('cr: unknown fields are pruned and defaults applied', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const res = await ctx.client.post(`/apis/${group}/v1/namespaces/${ns}/widgets`, {
      ...widget(group, 'w', { size: 1, bogus: 'x' }),
      extra: 1,
    });
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({ size: 1, color: 'blue' });
    expect(res.body.extra).toBeUndefined();
  });

  test('cr: fieldValidation=Strict refuses unknown fields (400); Warn stores and warns', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const strict = await ctx.client.post(base, widget(group, 's', { size: 1, bogus: 'x' }), { fieldValidation: 'Strict' });
    expectStatus(strict, 400, 'BadRequest');
    expect(strict.body.message).toContain('unknown field "spec.bogus"');
    const warn = await ctx.client.post(base, widget(group, 'w', { size: 1, bogus: 'x' }), { fieldValidation: 'Warn' });
    expect(warn.status).toBe(201);
    expect(String(warn.headers['warning'])).toContain('unknown field');
    expect(warn.body.spec.bogus).toBeUndefined();
  });

  test('cr: a namespaced CR in a missing namespace is 404', async () => {
    const group = await installWidgets(ctx);
    const res = await ctx.client.post(`/apis/${group}/v1/namespaces/no-such-ns-abc/widgets`, widget(group, 'w'));
    expectStatus(res, 404, 'NotFound', 'namespaces "no-such-ns-abc" not found');
  });

  test('crd: deleting it deletes every CR (watchers see DELETED) and drops it from discovery', async () => {
    const group = await installWidgets(ctx);
    const ns = await ctx.namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await ctx.client.post(base, widget(group, 'w1'));
    await ctx.client.post(base, widget(group, 'w2'));
    const start = (await ctx.client.get(base)).body.metadata.resourceVersion;
    const w = await ctx.client.watch(base, { resourceVersion: start });
    try {
      const del = await ctx.client.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
      expect(del.status).toBe(200);
      const deleted: string[] = [];
      while (deleted.length < 2) {
        const e = await w.next(15_000);
        if (!e) break;
        if (e.type === 'DELETED') deleted.push(e.object.metadata.name);
      }
      expect(deleted.sort()).toEqual(['w1', 'w2']);
    } finally {
      w.close();
    }
    await expect
      .poll(async () => (await ctx.client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`)).status, {
        timeout: 15_000,
        interval: 50,
      })
      .toBe(404);
    await expect.poll(async () => (await ctx.client.get(`/apis/${group}/v1`)).status, { timeout: 15_000, interval: 50 }).toBe(404);
  });
}
