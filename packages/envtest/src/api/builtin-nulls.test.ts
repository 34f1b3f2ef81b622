/**
 * builtin-nulls.ts against the Go types (tools/builtin-nulls, built with Go; skipped with the reason where Go is
 * missing; `UPDATE_BUILTIN_NULLS=1` rewrites the file instead), and what the server makes of it: a field Go writes as
 * null when unset reads back as null through get, list, watch and the write's answer, and nothing else changes.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { startApiServer } from '../api-server.js';
import { KubeHttpClient } from '../conformance/http-client.js';
import { BUILTIN_NULLS } from './builtin-nulls.js';
import { goMissing } from '../../../../tools/test-setup/src/go-missing.test-util.js';

const run = promisify(execFile);
const file = new URL('./builtin-nulls.ts', import.meta.url);
const buildScript = fileURLToPath(new URL('../../../../tools/builtin-nulls/build.sh', import.meta.url));

const missing = await goMissing('tools/builtin-nulls needs Go >= 1.26 and the Go module proxy');

test.skipIf(missing !== undefined)(
  `builtin-nulls.ts is what the Go types say${missing ? ` (${missing})` : ''}`,
  async () => {
    const { stdout } = await run(buildScript, [], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
    const bin = stdout.trim().split('\n').pop()!;
    const fromGo = JSON.parse((await run(bin, [], { maxBuffer: 16 * 1024 * 1024 })).stdout) as Record<string, string[]>;
    if (process.env['UPDATE_BUILTIN_NULLS'] === '1') {
      const source = await readFile(file, 'utf8');
      const head = source.slice(0, source.indexOf('export const BUILTIN_NULLS'));
      const body = Object.entries(fromGo)
        .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`)
        .join('\n');
      await writeFile(file, `${head}export const BUILTIN_NULLS: Readonly<Record<string, readonly string[]>> = {\n${body}\n};\n`);
    } else {
      expect(BUILTIN_NULLS).toEqual(fromGo);
    }
  },
  660_000,
);

describe('fields Go writes as null when unset', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });
  async function client(): Promise<KubeHttpClient> {
    const server = await startApiServer({ bootstrapPolicy: false });
    const c = new KubeHttpClient(server.kubeconfig());
    cleanups.push(
      () => server.close(),
      () => c.close(),
    );
    return c;
  }
  const roles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
  const slices = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

  test('read back as null from every path; set ones, and kinds without such fields, unchanged', async () => {
    const c = await client();
    const watch = await c.watch(roles, { resourceVersion: '0' });
    const created = await c.post(roles, { metadata: { name: 'aggregated' } });
    expect(created.status).toBe(201);
    expect(created.body).toHaveProperty('rules', null);
    expect((await c.get(`${roles}/aggregated`)).body).toHaveProperty('rules', null);
    expect(((await c.get(roles)).body.items as unknown[])[0]).toHaveProperty('rules', null);
    const event = (await watch.until((e) => e.object['metadata']?.name === 'aggregated')).pop()!;
    expect(event.object).toHaveProperty('rules', null);

    const rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
    const explicit = await c.post(roles, { metadata: { name: 'sent-null' }, rules: null });
    expect(explicit.body).toHaveProperty('rules', null);
    expect((await c.post(roles, { metadata: { name: 'set' }, rules: [rule] })).body.rules).toEqual([rule]);

    const slice = await c.post(slices, { metadata: { name: 'empty' }, addressType: 'IPv4' });
    expect(slice.body).toMatchObject({ endpoints: null, ports: null });
    // Below the top: a LimitRange's spec.limits.
    const limits = await c.post('/api/v1/namespaces/default/limitranges', { metadata: { name: 'none' }, spec: {} });
    expect(limits.body.spec).toEqual({ limits: null });
    const cm = await c.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'plain' } });
    expect(Object.values(cm.body).includes(null)).toBe(false);
  });
});
