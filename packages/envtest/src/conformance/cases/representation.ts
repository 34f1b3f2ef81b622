/** Read representations: PartialObjectMetadata(List) for metadata-only clients and Table for kubectl. */
import { expect, test } from 'vitest';
import type { SuiteContext } from '../context.js';
import { installWidgets } from './crd.js';
import { cmPath, configMap } from './helpers.js';

const POM = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const POM_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export function representationCases(ctx: SuiteContext): void {
  test('representation: PartialObjectMetadata for get, list and watch', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('m', { secret: 'value' }, { a: 'b' }));
    const one = await ctx.client.request('GET', cmPath(ns, 'm'), { headers: { Accept: POM } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'm', labels: { a: 'b' } },
    });
    expect(one.body.data).toBeUndefined();
    const list = await ctx.client.request('GET', cmPath(ns), { headers: { Accept: POM_LIST } });
    expect(list.body).toMatchObject({
      kind: 'PartialObjectMetadataList',
      items: [{ kind: 'PartialObjectMetadata', metadata: { name: 'm' } }],
    });
    expect(list.body.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  test('representation: a Table with Name and Age for built-ins', async () => {
    const ns = await ctx.namespace();
    await ctx.client.post(cmPath(ns), configMap('t'));
    const res = await ctx.client.request('GET', cmPath(ns), { headers: { Accept: TABLE } });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Table');
    const names = res.body.columnDefinitions.map((c: { name: string }) => c.name);
    expect(names[0]).toBe('Name');
    expect(names).toContain('Age');
    expect(res.body.rows).toHaveLength(1);
    expect(res.body.rows[0].cells[0]).toBe('t');
  });

  test('representation: a Table of custom resources uses the CRD printer columns', async () => {
    const group = await installWidgets(ctx, { printerColumns: true });
    const ns = await ctx.namespace();
    const created = await ctx.client.post(`/apis/${group}/v1/namespaces/${ns}/widgets`, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 7 },
    });
    expect(created.status, created.text).toBe(201);
    const res = await ctx.client.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets`, { headers: { Accept: TABLE } });
    expect(res.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Size', 'Color']);
    expect(res.body.rows[0].cells).toEqual(['w', 7, 'blue']);
  });

  test('representation: an unacceptable media type is 406', async () => {
    const res = await ctx.client.request('GET', cmPath('default'), { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });
}
