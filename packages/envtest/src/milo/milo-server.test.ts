/**
 * The fake Milo: Projects and ProjectControlPlanes on its core API, and one complete Kubernetes API per project under
 * the project's control-plane path, checked over HTTP and with kubectl (skipped with a reason where it is missing).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MiloRequestError, startMiloServer, type MiloServer } from './index.js';

const run = promisify(execFile);
const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
const cp = (project: string, rest: string): string =>
  `/apis/resourcemanager.miloapis.com/v1alpha1/projects/${project}/control-plane${rest}`;
let milo: MiloServer;

beforeAll(async () => {
  milo = await startMiloServer({ name: 'fake-milo' });
});
afterAll(async () => {
  await milo.close();
});

interface Listed {
  items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
}

describe('startMiloServer', () => {
  test('serves Projects and ProjectControlPlanes with the readiness conditions Milo writes', async () => {
    await milo.fixtures.createProject('p-cond', { ready: false, labels: { team: 'a' } });
    await milo.fixtures.createProjectControlPlane('p-cond', { ready: true, uid: 'u-1' });
    const project = await milo.fixtures.request<Listed['items'][number] & { metadata: { labels: Record<string, string> } }>(
      'GET',
      '/apis/resourcemanager.miloapis.com/v1alpha1/projects/p-cond',
    );
    expect(project.metadata.labels).toMatchObject({ team: 'a', 'resourcemanager.miloapis.com/organization-name': 'test-org' });
    expect(project.status?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'Unknown' })]);
    await milo.fixtures.setProjectReady('p-cond', true);
    const ready = await milo.fixtures.request<Listed['items'][number]>(
      'GET',
      '/apis/resourcemanager.miloapis.com/v1alpha1/projects/p-cond',
    );
    expect(ready.status?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Ready' })]);
    const pcps = await milo.fixtures.request<Listed>('GET', '/apis/infrastructure.miloapis.com/v1alpha1/projectcontrolplanes');
    expect(pcps.items.find((i) => i.metadata.name === 'p-cond')?.status?.conditions).toEqual([
      expect.objectContaining({ type: 'ControlPlaneReady', status: 'True' }),
    ]);
  });

  test("each project control plane is its own API, discovery included, apart from Milo's core API", async () => {
    const versions = await milo.fixtures.request<{ kind: string; versions: string[] }>('GET', cp('p-one', '/api'));
    expect(versions).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const resources = await milo.fixtures.request<{ resources: { name: string }[] }>('GET', cp('p-one', '/api/v1'));
    expect(resources.resources.map((r) => r.name)).toContain('configmaps');

    await milo.fixtures.request('POST', cp('p-one', '/api/v1/namespaces/default/configmaps'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'only-in-one' },
    });
    await expect(milo.fixtures.request('GET', cp('p-one', '/api/v1/namespaces/default/configmaps/only-in-one'))).resolves.toBeDefined();
    for (const elsewhere of [
      cp('p-two', '/api/v1/namespaces/default/configmaps/only-in-one'),
      '/api/v1/namespaces/default/configmaps/only-in-one',
    ]) {
      await expect(milo.fixtures.request('GET', elsewhere)).rejects.toMatchObject({ status: 404 });
    }
    // The Milo CRDs belong to the core API, not to project control planes.
    await expect(milo.fixtures.request('GET', cp('p-one', '/apis/resourcemanager.miloapis.com/v1alpha1/projects'))).rejects.toMatchObject({
      status: 404,
    });
  });

  test('a control plane taken down answers 404 until it is served again', async () => {
    milo.setControlPlaneServed('p-down', false);
    const err = await milo.fixtures.request('GET', cp('p-down', '/api/v1/namespaces')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MiloRequestError);
    expect(err).toMatchObject({ status: 404 });
    milo.setControlPlaneServed('p-down', true);
    await expect(milo.fixtures.request('GET', cp('p-down', '/api/v1/namespaces'))).resolves.toMatchObject({ kind: 'NamespaceList' });
  });

  test('internalAddress and controlPlaneUrl point at the same control planes', () => {
    expect(milo.internalAddress.replace('{name}', 'p1')).toBe(milo.controlPlaneUrl('p1'));
    expect(milo.controlPlaneUrl('p1')).toBe(`${milo.url}${cp('p1', '')}`);
  });
});

describe.skipIf(!KUBECTL)(`kubectl against a project control plane (${KUBECTL ?? 'not installed: install kubectl to run this'})`, () => {
  test('kubectl works with a project kubeconfig and sees that project only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'milo-kubectl-'));
    try {
      const file = join(dir, 'project.kubeconfig');
      await writeFile(file, milo.projectKubeconfig('p-kubectl'));
      await run(KUBECTL!, ['--kubeconfig', file, 'create', 'configmap', 'from-kubectl', '--from-literal=k=v']);
      const { stdout } = await run(KUBECTL!, ['--kubeconfig', file, 'get', 'configmaps', '-o', 'name']);
      expect(stdout).toContain('configmap/from-kubectl');
      await expect(
        milo.fixtures.request('GET', cp('p-kubectl', '/api/v1/namespaces/default/configmaps/from-kubectl')),
      ).resolves.toBeDefined();
      await expect(milo.fixtures.request('GET', '/api/v1/namespaces/default/configmaps/from-kubectl')).rejects.toMatchObject({
        status: 404,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
