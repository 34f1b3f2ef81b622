/**
 * Test fixtures: what sigs.k8s.io/cluster-inventory-api publishes (its ClusterProfile CRD and its real `secretreader`
 * credential plugin, prepared by tools/cluster-inventory-api/build.sh from the Go module proxy), a hub with that CRD,
 * member servers, and ClusterProfiles written the way a cluster manager writes them (object, then status).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { vi } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { newCluster, type Client, type KubeObject } from '@multicluster-runtime/core';
import type { AccessConfig } from './access-config.js';
import { clusterProfileKind, type ClusterProfile, type ProfileAccessProvider } from './cluster-profile.js';
import { goMissing as goMissingFor } from '../../../tools/test-setup/src/go-missing.test-util.js';

const run = promisify(execFile);
const buildScript = fileURLToPath(new URL('../../../tools/cluster-inventory-api/build.sh', import.meta.url));

export interface InventoryAssets {
  /** The module's ClusterProfile CRD, as published. */
  readonly clusterProfileCrd: KubeObject;
  /** The real secretreader plugin binary. */
  readonly secretreader: string;
  /** tools/cluster-inventory-api/access-check: upstream's pkg/access and client-go reaching profiles' clusters. */
  readonly accessCheck: string;
}

/**
 * The operator's access configuration for the real secretreader plugin, reading Secrets on the hub as the kubeconfig
 * at `hubKubeconfig` says (its context's namespace is where the plugin looks).
 */
export function secretreaderAccess(plugin: string, hubKubeconfig: string): AccessConfig {
  return {
    providers: [
      {
        name: 'secretreader',
        execConfig: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: plugin,
          provideClusterInfo: true,
          env: [{ name: 'KUBECONFIG', value: hubKubeconfig }],
        },
      },
    ],
  };
}

/** Why these tests skip, or undefined when Go runs. */
export const goMissing = (): Promise<string | undefined> =>
  goMissingFor('the tests fetch the ClusterProfile CRD and build the secretreader plugin from sigs.k8s.io/cluster-inventory-api');

/** Runs build.sh (a no-op when current; a cold Go build cache takes a minute or two) and loads its CRD. */
export async function inventoryAssets(timeoutMs = 300_000): Promise<InventoryAssets> {
  let dir: string;
  try {
    const { stdout } = await run(buildScript, [], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    dir = stdout.trim().split('\n').pop()!;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-10).join('\n');
    throw new Error(`tools/cluster-inventory-api/build.sh failed${stderr ? `:\n${stderr}` : ''}`, { cause: err });
  }
  const text = await readFile(join(dir, 'crds', 'multicluster.x-k8s.io_clusterprofiles.yaml'), 'utf8');
  const clusterProfileCrd = parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .find((o) => o?.kind === 'CustomResourceDefinition')!;
  return { clusterProfileCrd, secretreader: join(dir, 'secretreader'), accessCheck: join(dir, 'access-check') };
}

/** Creates the CRD and waits until ClusterProfiles are served (a CRD becomes Established asynchronously). */
export async function installClusterProfileCrd(client: Client, crd: KubeObject): Promise<void> {
  await client.create(crd);
  await vi.waitFor(() => client.list(clusterProfileKind, { namespace: 'default' }), { timeout: 30_000 });
}

export function adminClient(kubeconfig: string, name: string): { client: Client; close: () => Promise<void> } {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const cluster = newCluster(kc, { name });
  return { client: cluster.apiReader, close: () => cluster.close() };
}

export function healthyCondition(status: 'True' | 'False' = 'True') {
  return {
    type: 'ControlPlaneHealthy',
    status,
    reason: status === 'True' ? 'Healthy' : 'Unhealthy',
    message: status === 'True' ? 'the control plane answers' : 'the control plane does not answer',
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

/** The cluster entry of an access provider for a server with this CA (PEM). */
export function clusterEntry(server: string, caPem: string | undefined, extensions: Array<{ name: string; extension: unknown }> = []) {
  return {
    server,
    ...(caPem ? { 'certificate-authority-data': Buffer.from(caPem).toString('base64') } : {}),
    ...(extensions.length > 0 ? { extensions } : {}),
  };
}

/** Writes a profile (creating it when missing) and then its status, as a cluster manager would. */
export async function putProfile(
  client: Client,
  namespace: string,
  name: string,
  status: { healthy?: boolean; accessProviders?: ProfileAccessProvider[]; credentialProviders?: ProfileAccessProvider[] },
  labels: Record<string, string> = {},
): Promise<ClusterProfile> {
  let current: ClusterProfile;
  try {
    current = await client.get<ClusterProfile>(clusterProfileKind, { namespace, name });
  } catch {
    current = await client.create<ClusterProfile>({
      ...clusterProfileKind,
      metadata: { namespace, name, labels },
      spec: { displayName: name, clusterManager: { name: 'test-manager' } },
    });
  }
  const { healthy = true, ...providers } = status;
  return client.updateStatus<ClusterProfile>({
    ...current,
    status: { conditions: [healthyCondition(healthy ? 'True' : 'False')], ...providers },
  });
}
