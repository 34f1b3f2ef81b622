/**
 * builtin-list-strategies.ts is what the real kube-apiserver of the pinned version says, in its OpenAPI v3 documents,
 * about how strategic merge patches merge each built-in kind's lists (`x-kubernetes-patch-strategy: merge`, with
 * `x-kubernetes-patch-merge-key` for lists of objects). The in-memory server merges by it, so no Go or OpenAPI is
 * needed at test time. This test fails when the file and the server disagree; `UPDATE_BUILTIN_LIST_STRATEGIES=1`
 * rewrites the file instead (then `npm run format`). Needs KUBEBUILDER_ASSETS, else one skipped test says why.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { assetsDirFromEnv, startTestEnvironment } from '../real/index.js';
import { httpsGet } from './builtin-discovery.test-util.js';
import { BUILTIN_LIST_STRATEGIES } from './builtin-list-strategies.js';
import type { ListStrategy } from './patch/strategic-merge-patch.js';

const file = new URL('./builtin-list-strategies.ts', import.meta.url);

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[]; $ref?: string };

/** Every merging list reachable from `root`, as `path` (dots, `[]` for list items) → strategy. */
function listStrategies(root: Schema, schemas: Record<string, Schema>): Record<string, ListStrategy> {
  const out: Record<string, ListStrategy> = {};
  const resolve = (s: Schema | undefined): Schema | undefined => {
    let cur = s;
    for (let i = 0; cur && i < 5; i++) {
      if (cur.$ref) cur = schemas[cur.$ref.replace('#/components/schemas/', '')];
      else if (cur.allOf?.length === 1 && !cur.properties && !cur.items) cur = cur.allOf[0];
      else break;
    }
    return cur;
  };
  const walk = (schema: Schema | undefined, path: string, seen: readonly string[]): void => {
    const s = resolve(schema);
    // Recursive types (JSONSchemaProps, through properties and items alike) end at the first repeat or depth 14.
    if (!s?.properties || path.split('.').length > 14) return;
    for (const [name, prop] of Object.entries(s.properties)) {
      const childPath = path ? `${path}.${name}` : name;
      const resolved = resolve(prop);
      const ref = prop.$ref ?? prop.allOf?.[0]?.$ref ?? prop.items?.$ref ?? prop.items?.allOf?.[0]?.$ref ?? '';
      if (ref && seen.includes(ref)) continue;
      if (resolved?.type === 'array' || resolved?.items) {
        const declared = prop['x-kubernetes-patch-strategy'] ?? resolved?.['x-kubernetes-patch-strategy'];
        const strategy = typeof declared === 'string' ? declared : '';
        const key = prop['x-kubernetes-patch-merge-key'] ?? resolved?.['x-kubernetes-patch-merge-key'];
        const item = resolve(resolved.items);
        if (strategy.split(',').includes('merge')) {
          if (typeof key === 'string') out[childPath] = { kind: 'keyed', key };
          else if (!item?.properties) out[childPath] = { kind: 'set' };
        }
        walk(resolved.items, `${childPath}[]`, ref ? [...seen, ref] : seen);
      } else if (resolved?.properties) walk(prop, childPath, ref ? [...seen, ref] : seen);
    }
  };
  walk(root, '', []);
  return out;
}

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  test('builtin-list-strategies.ts is what the real kube-apiserver says in OpenAPI v3', async () => {
    const env = await startTestEnvironment();
    try {
      const get = (path: string) => httpsGet(env.url, path, env.adminToken, env.caPem);
      const index = (await get('/openapi/v3')) as { paths: Record<string, { serverRelativeURL: string }> };
      const byKind: Record<string, Record<string, ListStrategy>> = {};
      for (const [path, entry] of Object.entries(index.paths).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!/^(api\/v1|apis\/[^/]+\/[^/]+)$/.test(path)) continue;
        const doc = (await get(entry.serverRelativeURL)) as { components?: { schemas?: Record<string, Schema> } };
        const schemas = doc.components?.schemas ?? {};
        const groupVersion = path === 'api/v1' ? 'v1' : path.slice('apis/'.length);
        for (const schema of Object.values(schemas)) {
          const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as { group: string; version: string; kind: string }[];
          for (const gvk of gvks) {
            const gv = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
            if (gv !== groupVersion || gvk.kind.endsWith('List') || !schema.properties?.['metadata']) continue;
            const strategies = listStrategies(schema, schemas);
            if (Object.keys(strategies).length > 0) byKind[`${gv}/${gvk.kind}`] = strategies;
          }
        }
      }
      const sorted = Object.fromEntries(Object.entries(byKind).sort(([a], [b]) => (a < b ? -1 : 1)));
      if (process.env['UPDATE_BUILTIN_LIST_STRATEGIES'] === '1') {
        const source = await readFile(file, 'utf8');
        const head = source.slice(0, source.indexOf('export const BUILTIN_LIST_STRATEGIES'));
        await writeFile(
          file,
          `${head}export const BUILTIN_LIST_STRATEGIES: Readonly<Record<string, Readonly<Record<string, ListStrategy>>>> = ${JSON.stringify(sorted, null, 1)};\n`,
        );
      } else {
        expect(BUILTIN_LIST_STRATEGIES).toEqual(sorted);
      }
    } finally {
      await env.stop();
    }
  }, 120_000);
}
