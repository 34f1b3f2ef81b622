/**
 * Serving an export's APIResourceSchemas in a bound workspace, as the fake does it: one CustomResourceDefinition per
 * schema, marked with kcp's bound-CRD annotation. A CRD of the same name the workspace already has without that mark
 * is a naming conflict: kcp then keeps the binding from becoming Ready until the CRD is gone.
 */
import type { AdminClient } from '../admin-client.js';
import { KcpRequestError } from './errors.js';
import type { Json } from './json.js';
import { nameOf, obj, objs, str } from './json.js';

/** Marks the CustomResourceDefinitions that bindings created (kcp's annotation on its bound CRDs); others conflict. */
export const BOUND_CRD_ANNOTATION = 'apis.kcp.io/bound-crd';

/** The CustomResourceDefinition that serves an APIResourceSchema in a bound workspace. */
export function crdFromSchema(schema: Json): Json {
  const spec = obj(schema, 'spec');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${str(spec, 'names', 'plural')}.${str(spec, 'group')}`, annotations: { [BOUND_CRD_ANNOTATION]: 'true' } },
    spec: { group: spec['group'], names: spec['names'], scope: spec['scope'] ?? 'Namespaced', versions: spec['versions'] },
  };
}

/** `group/resource` of an APIResourceSchema. */
export const schemaResource = (schema: Json): string => `${str(schema, 'spec', 'group')}/${str(schema, 'spec', 'names', 'plural')}`;

/**
 * Creates the CRD of each schema in `cluster` and waits until it is served. Returns the names of CRDs the workspace
 * already has for these resources that no binding made (naming conflicts); those are left alone.
 */
export async function serveSchemas(client: AdminClient, cluster: string, schemas: Json[]): Promise<string[]> {
  const conflicts: string[] = [];
  for (const schema of schemas) {
    const crd = crdFromSchema(schema);
    const name = nameOf(crd);
    const base = `/clusters/${cluster}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
    const existing = await client.getOrUndefined(`${base}/${name}`);
    if (existing && str(existing, 'metadata', 'annotations', BOUND_CRD_ANNOTATION) !== 'true') {
      conflicts.push(name);
      continue;
    }
    if (!existing) {
      try {
        await client.send('POST', base, crd);
      } catch (err) {
        if (!(err instanceof KcpRequestError && err.status === 409)) throw err;
      }
    }
    const version = str(objs(crd, 'spec', 'versions')[0], 'name');
    for (let i = 0; i < 200; i++) {
      if (await client.getOrUndefined(`/clusters/${cluster}/apis/${str(crd, 'spec', 'group')}/${version}`)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return conflicts;
}
