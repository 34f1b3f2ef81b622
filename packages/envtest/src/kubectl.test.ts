/**
 * kubectl, which nobody here wrote, against the in-memory server: the external check that it speaks Kubernetes.
 * Skips with a reason when no kubectl binary is installed.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiServer } from './index.js';
import { startApiServer } from './index.js';

const run = promisify(execFile);
const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.kubectl.example.com
spec:
  group: kubectl.example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
`;

describe.skipIf(!KUBECTL)(`kubectl (${KUBECTL ?? 'not installed: install kubectl to run these'})`, () => {
  let server: ApiServer;
  let dir: string;

  const kubectl = async (...args: string[]): Promise<string> => {
    try {
      const { stdout } = await run(KUBECTL!, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], {
        timeout: 30_000,
      });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
    }
  };
  const file = async (name: string, text: string): Promise<string> => {
    const p = join(dir, name);
    await writeFile(p, text);
    return p;
  };

  beforeAll(async () => {
    server = await startApiServer();
    dir = await mkdtemp(join(tmpdir(), 'envtest-kubectl-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('apply -f a ConfigMap, re-apply a change (strategic merge), get -o json / -o yaml, delete', async () => {
    const v1 = await file('cm1.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels: {tier: web}\ndata:\n  a: "1"\n');
    expect(await kubectl('apply', '-f', v1)).toContain('configmap/app created');
    const v2 = await file(
      'cm2.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels: {tier: web}\ndata:\n  a: "2"\n  b: "3"\n',
    );
    expect(await kubectl('apply', '-f', v2)).toContain('configmap/app configured');
    const json = JSON.parse(await kubectl('get', 'configmap', 'app', '-o', 'json'));
    expect(json.data).toEqual({ a: '2', b: '3' });
    expect(json.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"b":"3"');
    const yaml = await kubectl('get', 'cm', 'app', '-o', 'yaml');
    expect(yaml).toContain('name: app');
    expect(yaml).toContain('b: "3"');
    expect(await kubectl('get', 'cm', '-l', 'tier=web', '-o', 'name')).toBe('configmap/app\n');
    // kube's ConfigMap printer columns: NAME DATA AGE.
    expect((await kubectl('get', 'cm', 'app')).split('\n')[1]).toMatch(/^app\s+2\s+\d+s$/);
    expect(await kubectl('delete', 'cm', 'app')).toContain('configmap "app" deleted');
    await expect(kubectl('get', 'cm', 'app')).rejects.toThrow(/NotFound|not found/);
  });

  test('scale deployment goes through the scale subresource; --current-replicas is a precondition', async () => {
    const deployment = await file(
      'deploy.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n' +
        '  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: "nginx:1.27"}]}\n',
    );
    expect(await kubectl('apply', '-f', deployment)).toContain('deployment.apps/web created');
    expect(await kubectl('scale', 'deployment', 'web', '--replicas=4')).toContain('deployment.apps/web scaled');
    expect(JSON.parse(await kubectl('get', 'deployment', 'web', '-o', 'json')).spec.replicas).toBe(4);
    await expect(kubectl('scale', 'deployment', 'web', '--current-replicas=2', '--replicas=1')).rejects.toThrow(
      /Expected replicas to be 2, was 4/,
    );
    expect(await kubectl('scale', 'deployment', 'web', '--current-replicas=4', '--replicas=1')).toContain('scaled');
    expect(JSON.parse(await kubectl('get', 'deploy', 'web', '-o', 'json')).spec.replicas).toBe(1);
  });

  test('apply -f a CRD, wait for Established, apply -f an instance, get it, delete it', async () => {
    await kubectl('apply', '-f', await file('crd.yaml', CRD));
    await kubectl('wait', '--for', 'condition=established', '--timeout=20s', 'crd/gadgets.kubectl.example.com');
    const instance = await file(
      'gadget.yaml',
      'apiVersion: kubectl.example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  size: 3\n',
    );
    expect(await kubectl('apply', '-f', instance)).toContain('gadget.kubectl.example.com/g1 created');
    const changed = await file(
      'gadget2.yaml',
      'apiVersion: kubectl.example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  size: 4\n',
    );
    expect(await kubectl('apply', '-f', changed)).toContain('configured');
    const got = JSON.parse(await kubectl('get', 'gadget', 'g1', '-o', 'json'));
    expect(got).toMatchObject({ kind: 'Gadget', spec: { size: 4 }, metadata: { generation: 2 } });
    expect(await kubectl('get', 'gadgets', '-o', 'yaml')).toContain('size: 4');
    // The server-side Table carries the CRD's printer columns.
    expect((await kubectl('get', 'gadgets')).split('\n')).toEqual([
      expect.stringMatching(/^NAME\s+SIZE$/),
      expect.stringMatching(/^g1\s+4$/),
      '',
    ]);
    expect(await kubectl('delete', '-f', changed)).toContain('deleted');
  });

  test('apply --server-side creates, updates and records kubectl as the field manager', async () => {
    const v1 = await file('ssa1.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "1"\n  b: "2"\n');
    expect(await kubectl('apply', '--server-side', '-f', v1)).toContain('configmap/ssa serverside-applied');
    const v2 = await file('ssa2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "3"\n');
    await kubectl('apply', '--server-side', '-f', v2);
    const got = JSON.parse(await kubectl('get', 'cm', 'ssa', '-o', 'json', '--show-managed-fields'));
    expect(got.data).toEqual({ a: '3' });
    expect(got.metadata.managedFields.map((f: { manager: string }) => f.manager)).toContain('kubectl');
  });

  test('get -w sees an update', async () => {
    await kubectl('create', 'configmap', 'watched', '--from-literal=v=1');
    const child = spawn(
      KUBECTL!,
      [
        '--kubeconfig',
        join(dir, 'kubeconfig'),
        '--cache-dir',
        join(dir, 'cache'),
        'get',
        'cm',
        'watched',
        '-w',
        '-o',
        'jsonpath={.data.v}{"\\n"}',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toContain('1\n');
      await kubectl('patch', 'cm', 'watched', '--type=merge', '-p', '{"data":{"v":"2"}}');
      await expect.poll(() => out, { timeout: 20_000 }).toContain('2\n');
    } finally {
      child.kill();
    }
  });

  test('get -w in table form prints the update', async () => {
    await kubectl('create', 'configmap', 'tabled', '--from-literal=v=1');
    const child = spawn(
      KUBECTL!,
      ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), 'get', 'cm', 'tabled', '-w', '--output-watch-events'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/ADDED\s+tabled/);
      await kubectl('label', 'cm', 'tabled', 'x=y');
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/MODIFIED\s+tabled/);
    } finally {
      child.kill();
    }
  });

  test("a bad token gets kubectl's Unauthorized message", async () => {
    server.addToken('good-token', 'alice');
    await writeFile(join(dir, 'bad'), server.kubeconfig({ user: { token: 'wrong-token' } }));
    const failure = await run(KUBECTL!, ['--kubeconfig', join(dir, 'bad'), '--cache-dir', join(dir, 'cache2'), 'get', 'ns']).then(
      () => undefined,
      (err: { stderr?: string }) => err.stderr ?? '',
    );
    expect(failure).toContain('error: You must be logged in to the server');
    await writeFile(join(dir, 'good'), server.kubeconfig({ user: { token: 'good-token' } }));
    const { stdout } = await run(KUBECTL!, [
      '--kubeconfig',
      join(dir, 'good'),
      '--cache-dir',
      join(dir, 'cache3'),
      'get',
      'ns',
      'default',
      '-o',
      'name',
    ]);
    expect(stdout).toBe('namespace/default\n');
  });
});
