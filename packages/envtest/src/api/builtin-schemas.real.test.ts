/**
 * builtin-schemas.ts is what the real kube-apiserver of the pinned version says about each built-in kind in its
 * OpenAPI v3 documents, reduced to what the in-memory server needs: every field's Go type, the defaults the schema
 * declares, and how strategic merge patches merge lists (`x-kubernetes-patch-strategy: merge`, with
 * `x-kubernetes-patch-merge-key` for lists of objects). The in-memory server decodes and merges by it, so no Go or
 * OpenAPI is needed at test time. This test fails when the file and the server disagree; `UPDATE_BUILTIN_SCHEMAS=1`
 * rewrites the file instead (then `npm run format`). Needs KUBEBUILDER_ASSETS, else one skipped test says why.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { assetsDirFromEnv, startTestEnvironment } from '../real/index.js';
import { httpsGet } from './builtin-discovery.test-util.js';
import { BUILTIN_SCHEMAS, type BuiltinSchemas } from './builtin-schemas.js';

const file = new URL('./builtin-schemas.ts', import.meta.url);

type Schema = Record<string, unknown> & {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  $ref?: string;
};

/** Definitions whose JSON form is not their schema's `type`: they decode themselves in Go. */
const SELF_DECODING: Record<string, string> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'time',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'any',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'any',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'any',
};

/** The reduced schemas of every kind the documents define, keyed as builtin-schemas.ts keys them. */
function reduce(documents: Record<string, { components?: { schemas?: Record<string, Schema> } }>): BuiltinSchemas {
  const kinds: Record<string, string> = {};
  const types: Record<string, Record<string, string>> = {};
  const defaults: Record<string, Record<string, unknown>> = {};
  const lists: Record<string, Record<string, string>> = {};
  const short = (definition: string) => definition.replace(/^io\.k8s\./, '');
  for (const [path, doc] of Object.entries(documents)) {
    const schemas = doc.components?.schemas ?? {};
    const groupVersion = path === 'api/v1' ? 'v1' : path.slice('apis/'.length);
    const typeOf = (s: Schema): string => {
      const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0]!.$ref : undefined);
      if (ref) {
        const definition = ref.replace('#/components/schemas/', '');
        if (SELF_DECODING[definition]) return SELF_DECODING[definition];
        // No type and no fields: one of several JSON forms (JSONSchemaPropsOrBool), decoded by its own code.
        if (!schemas[definition]?.type && !schemas[definition]?.properties) return 'any';
        define(definition);
        return short(definition);
      }
      if (s.type === 'array') return `[]${typeOf(s.items ?? {})}`;
      if (s.type === 'object' && typeof s.additionalProperties === 'object') return `map[string]${typeOf(s.additionalProperties)}`;
      if (s.type === 'integer') return s.format === 'int32' ? 'int32' : 'int64';
      if (s.type === 'number') return 'float64';
      if (s.type === 'boolean') return 'bool';
      if (s.type === 'string') return 'string';
      return 'any';
    };
    const define = (definition: string): void => {
      const name = short(definition);
      if (types[name]) return;
      const schema = schemas[definition];
      if (!schema) throw new Error(`${path} refers to ${definition} but does not define it`);
      const fields: Record<string, string> = {};
      types[name] = fields;
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        fields[field] = typeOf(prop);
        if (prop['default'] !== undefined) (defaults[name] ??= {})[field] = prop['default'];
        const strategy = typeof prop['x-kubernetes-patch-strategy'] === 'string' ? prop['x-kubernetes-patch-strategy'] : '';
        const key = prop['x-kubernetes-patch-merge-key'];
        if (strategy.split(',').includes('merge') && fields[field].startsWith('[]'))
          (lists[name] ??= {})[field] = typeof key === 'string' ? key : '';
      }
    };
    for (const [definition, schema] of Object.entries(schemas)) {
      for (const gvk of (schema['x-kubernetes-group-version-kind'] ?? []) as { group: string; version: string; kind: string }[]) {
        const gv = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
        if (gv !== groupVersion || gvk.kind.endsWith('List') || !schema.properties?.['metadata']) continue;
        kinds[`${gv}/${gvk.kind}`] = short(definition);
        define(definition);
      }
    }
  }
  const sorted = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { kinds: sorted(kinds), types: sorted(types), defaults: sorted(defaults), lists: sorted(lists) };
}

/** One entry per line, so the file diffs by definition. */
function render(section: Record<string, unknown>): string {
  return `{\n${Object.entries(section)
    .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`)
    .join('\n')}\n}`;
}

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  test('builtin-schemas.ts is what the real kube-apiserver says in OpenAPI v3', async () => {
    const env = await startTestEnvironment();
    try {
      const get = (path: string) => httpsGet(env.url, path, env.adminToken, env.caPem);
      const index = (await get('/openapi/v3')) as { paths: Record<string, { serverRelativeURL: string }> };
      const documents: Record<string, { components?: { schemas?: Record<string, Schema> } }> = {};
      for (const [path, entry] of Object.entries(index.paths).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (/^(api\/v1|apis\/[^/]+\/[^/]+)$/.test(path))
          documents[path] = (await get(entry.serverRelativeURL)) as (typeof documents)[string];
      }
      const reduced = reduce(documents);
      if (process.env['UPDATE_BUILTIN_SCHEMAS'] === '1') {
        const source = await readFile(file, 'utf8');
        const head = source.slice(0, source.indexOf('export const BUILTIN_SCHEMAS'));
        const body = (Object.keys(reduced) as (keyof BuiltinSchemas)[]).map((k) => `  ${k}: ${render(reduced[k]).replace(/\n/g, '\n  ')},`);
        await writeFile(file, `${head}export const BUILTIN_SCHEMAS: BuiltinSchemas = {\n${body.join('\n')}\n};\n`);
      } else {
        expect(BUILTIN_SCHEMAS).toEqual(reduced);
      }
    } finally {
      await env.stop();
    }
  }, 120_000);
}
