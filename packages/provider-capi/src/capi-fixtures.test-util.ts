/**
 * Test fixtures: the real Cluster API `Cluster` CRD (v1beta1 and v1beta2, from the Go module sigs.k8s.io/cluster-api,
 * fetched through the Go module proxy by tools/cluster-api/fetch.sh) and Cluster objects as CAPI itself writes them.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { Client, KubeObject } from '@multicluster-runtime/core';
import { goMissing as goMissingFor } from '../../../tools/test-setup/src/go-missing.test-util.js';

const run = promisify(execFile);
const fetchScript = fileURLToPath(new URL('../../../tools/cluster-api/fetch.sh', import.meta.url));

/** Why these tests skip, or undefined when Go runs. */
export const goMissing = (): Promise<string | undefined> =>
  goMissingFor('the tests fetch the Cluster API CRDs from the Go module sigs.k8s.io/cluster-api');

/** The folder holding the module's CRD files (config/crd/bases). */
export async function capiCrdDir(): Promise<string> {
  try {
    const { stdout } = await run(fetchScript, [], { timeout: 300_000 });
    return join(stdout.trim().split('\n').pop()!, 'crds');
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-10).join('\n');
    throw new Error(`tools/cluster-api/fetch.sh failed${stderr ? `:\n${stderr}` : ''}`, { cause: err });
  }
}

/** The real `clusters.cluster.x-k8s.io` CRD, as published. */
export async function capiClusterCrd(): Promise<KubeObject> {
  return parse(await readFile(join(await capiCrdDir(), 'cluster.x-k8s.io_clusters.yaml'), 'utf8')) as KubeObject;
}

export function capiCluster(namespace: string, name: string, apiVersion = 'cluster.x-k8s.io/v1beta2'): KubeObject {
  return { apiVersion, kind: 'Cluster', metadata: { namespace, name }, spec: { paused: false } };
}

/** Marks the control plane initialized the way the given API version reports it. */
export async function markInitialized(client: Client, cluster: KubeObject): Promise<void> {
  const status =
    cluster.apiVersion === 'cluster.x-k8s.io/v1beta1' ? { controlPlaneReady: true } : { initialization: { controlPlaneInitialized: true } };
  const current = await client.get(
    { apiVersion: cluster.apiVersion!, kind: 'Cluster' },
    {
      namespace: cluster.metadata.namespace!,
      name: cluster.metadata.name!,
    },
  );
  await client.updateStatus({ ...current, status });
}

export function kubeconfigSecret(namespace: string, clusterName: string, kubeconfig: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace, name: `${clusterName}-kubeconfig`, labels: { 'cluster.x-k8s.io/cluster-name': clusterName } },
    type: 'cluster.x-k8s.io/secret',
    data: { value: Buffer.from(kubeconfig).toString('base64') },
  };
}
