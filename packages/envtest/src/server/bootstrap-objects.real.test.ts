/**
 * bootstrap-objects.ts is what the real kube-apiserver of the pinned version writes at start (the real tier; needs
 * KUBEBUILDER_ASSETS, else one skipped test says why): the RBAC bootstrap policy (ClusterRoles, ClusterRoleBindings,
 * Roles, RoleBindings), the API Priority and Fairness configuration (FlowSchemas, PriorityLevelConfigurations) and the
 * default ServiceCIDR. The in-memory server creates them from this file, so no Go is needed at test time. This test
 * fails when the file and the server disagree; `UPDATE_BOOTSTRAP_OBJECTS=1` rewrites the file instead.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, test, vi } from 'vitest';
import { httpsGet } from '../api/builtin-discovery.test-util.js';
import { assetsDirFromEnv, startTestEnvironment } from '../real/index.js';
import { BOOTSTRAP_OBJECTS, BOOTSTRAP_RESOURCES, type BootstrapObject } from './bootstrap-objects.js';
import { normalized } from './bootstrap-objects.test-util.js';

const file = new URL('./bootstrap-objects.ts', import.meta.url);

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  test('bootstrap-objects.ts is what the real kube-apiserver creates at start', async () => {
    const env = await startTestEnvironment();
    try {
      const get = (path: string) => httpsGet(env.url, path, env.adminToken, env.caPem);
      const objects: BootstrapObject[] = [];
      for (const { groupVersion, resource, kind } of BOOTSTRAP_RESOURCES) {
        // The RBAC and APF post-start hooks are /readyz checks, done before the environment starts; the default
        // ServiceCIDR comes from a controller, so its list is awaited until it is there.
        const items = await vi.waitFor(
          async () => {
            const list = ((await get(`/apis/${groupVersion}/${resource}`)) as { items: Record<string, unknown>[] }).items;
            expect(list.length, resource).toBeGreaterThan(0);
            return list;
          },
          { timeout: 30_000, interval: 200 },
        );
        objects.push(...items.map((o) => normalized({ ...o, apiVersion: groupVersion, kind })));
      }
      if (process.env['UPDATE_BOOTSTRAP_OBJECTS'] === '1') {
        const source = await readFile(file, 'utf8');
        const head = source.slice(0, source.indexOf('export const BOOTSTRAP_OBJECTS'));
        await writeFile(file, `${head}export const BOOTSTRAP_OBJECTS: readonly BootstrapObject[] = ${JSON.stringify(objects, null, 1)};\n`);
      } else {
        expect(BOOTSTRAP_OBJECTS).toEqual(objects);
      }
    } finally {
      await env.stop();
    }
  }, 120_000);
}
