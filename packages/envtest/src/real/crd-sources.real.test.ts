/**
 * CRDs from every source a test has, installed into a real kube-apiserver: YAML text with several documents, a
 * folder of YAML and JSON files, and an object parsed by client-node's `loadYaml` (whose schema carries client-node's
 * property names, which the API server refuses as is). Bad input is refused before any process starts.
 */
import { KubeConfig, KubernetesObjectApi, loadYaml } from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetsDirFromEnv } from './assets.js';
import { TestEnvironmentOptionsError } from './errors.js';
import { startTestEnvironment, type TestEnvironment } from './test-environment.js';

const crdYaml = (plural: string, kind: string, extra = '') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.sources.example.com
spec:
  group: sources.example.com
  names: { kind: ${kind}, plural: ${plural} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object${extra}
`;

describe.skipIf(!assetsDirFromEnv())('crds and crdPaths of a real test environment', () => {
  let dir: string;
  let env: TestEnvironment;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crd-sources-'));
    await writeFile(join(dir, 'gadgets.yaml'), crdYaml('gadgets', 'Gadget'));
    const { parse } = await import('yaml');
    await writeFile(join(dir, 'gizmos.json'), JSON.stringify(parse(crdYaml('gizmos', 'Gizmo'))));
    await writeFile(join(dir, 'notes.txt'), 'not a CRD, and not read');
    // What a user gets from client-node: x_kubernetes_preserve_unknown_fields and _default instead of the wire names.
    const model = loadYaml<object>(
      crdYaml('models', 'Model', '\n              x-kubernetes-preserve-unknown-fields: true\n              default: { size: 1 }'),
    );
    env = await startTestEnvironment({
      crds: [`${crdYaml('alphas', 'Alpha')}---\n${crdYaml('betas', 'Beta')}---\n`, model],
      crdPaths: [dir],
    });
  }, 120_000);

  afterAll(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('installs every CRD from text, files and client-node objects, each served at once', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(env.kubeconfig());
    const api = KubernetesObjectApi.makeApiClient(kc);
    for (const kind of ['Alpha', 'Beta', 'Gadget', 'Gizmo', 'Model']) {
      const list = await api.list('sources.example.com/v1', kind, 'default');
      expect(list.items, kind).toEqual([]);
    }
    // The client-node object's schema kept its meaning: unknown fields are preserved and the default applies.
    const created = (await api.create({
      apiVersion: 'sources.example.com/v1',
      kind: 'Model',
      metadata: { namespace: 'default', name: 'm' },
      spec: { anything: 'kept' },
    } as never)) as unknown as { spec: Record<string, unknown> };
    expect(created.spec).toEqual({ anything: 'kept' });
    const defaulted = (await api.create({
      apiVersion: 'sources.example.com/v1',
      kind: 'Model',
      metadata: { namespace: 'default', name: 'd' },
    } as never)) as unknown as { spec: Record<string, unknown> };
    expect(defaulted.spec).toEqual({ size: 1 });
  });

  it('refuses bad input before starting anything', async () => {
    await expect(startTestEnvironment({ crds: ['kind: [unclosed'] })).rejects.toThrow(/crds\[0\]: not valid YAML or JSON/);
    await expect(startTestEnvironment({ crds: ['- a\n- b\n'] })).rejects.toThrow(/crds\[0\]: document 1 is not an object/);
    await expect(startTestEnvironment({ crdPaths: [join(dir, 'missing')] })).rejects.toBeInstanceOf(TestEnvironmentOptionsError);
  });
});
