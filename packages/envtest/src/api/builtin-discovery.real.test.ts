/**
 * builtin-discovery.ts is what the real kube-apiserver of the pinned version says about its built-in resources (the
 * real tier; needs KUBEBUILDER_ASSETS, else one skipped test says why): for each group, the preferred version's
 * resources with scope, kind, verbs, short names, categories and subresources. The in-memory server serves every
 * storable one of them from this file, so no Go is needed at test time. This test fails when the file and the
 * server disagree; `UPDATE_BUILTIN_DISCOVERY=1` rewrites the file instead.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { assetsDirFromEnv, startTestEnvironment } from '../real/index.js';
import { httpsGet } from './builtin-discovery.test-util.js';

import { BUILTIN_DISCOVERY } from './builtin-discovery.js';

const file = new URL('./builtin-discovery.ts', import.meta.url);

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  test('builtin-discovery.ts is what the real kube-apiserver serves', async () => {
    const env = await startTestEnvironment();
    try {
      const get = (path: string) => httpsGet(env.url, path, env.adminToken, env.caPem);
      const version = (await get('/version')) as { gitVersion: string };
      const groups = ((await get('/apis')) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] }).groups;
      const groupVersions = ['v1', ...groups.map((g) => g.preferredVersion.groupVersion)];
      const resources: Record<string, unknown[]> = {};
      for (const gv of groupVersions) {
        const list = (await get(gv === 'v1' ? '/api/v1' : `/apis/${gv}`)) as { resources: Record<string, unknown>[] };
        resources[gv] = list.resources.map((r) => ({
          name: r['name'],
          namespaced: r['namespaced'],
          kind: r['kind'],
          verbs: r['verbs'],
          ...(r['shortNames'] ? { shortNames: r['shortNames'] } : {}),
          ...(r['categories'] ? { categories: r['categories'] } : {}),
        }));
      }
      const snapshot = { gitVersion: version.gitVersion, resources };
      if (process.env['UPDATE_BUILTIN_DISCOVERY'] === '1') {
        const source = await readFile(file, 'utf8');
        const head = source.slice(0, source.indexOf('export const BUILTIN_DISCOVERY'));
        await writeFile(file, `${head}export const BUILTIN_DISCOVERY: DiscoverySnapshot = ${JSON.stringify(snapshot, null, 1)};\n`);
      } else {
        expect(BUILTIN_DISCOVERY).toEqual(snapshot);
      }
    } finally {
      await env.stop();
    }
  }, 120_000);
}
