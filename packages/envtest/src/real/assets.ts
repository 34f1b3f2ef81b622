/**
 * Finds the kube-apiserver and etcd binaries the way controller-runtime's envtest does: `TEST_ASSET_KUBE_APISERVER`
 * and `TEST_ASSET_ETCD` name a binary each; otherwise both sit in one folder, given explicitly or by
 * `KUBEBUILDER_ASSETS`. tools/kube-apiserver/build.sh builds such a folder from the upstream Go modules.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AssetsNotFoundError } from './errors.js';

/** Paths of the two binaries a real test environment runs. */
export interface ControlPlaneAssets {
  readonly kubeApiServer: string;
  readonly etcd: string;
}

const buildHint = 'run tools/kube-apiserver/build.sh and export KUBEBUILDER_ASSETS to the folder it prints';

/** The assets folder named by the environment, or undefined when the real tier is not configured. */
export function assetsDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env['KUBEBUILDER_ASSETS']?.trim();
  return dir ? dir : undefined;
}

/**
 * Resolves and checks both binaries. `assetsDir` wins over KUBEBUILDER_ASSETS; the per-binary variables win over
 * both. Throws AssetsNotFoundError naming what is missing and how to get it.
 */
export async function resolveAssets(assetsDir?: string, env: NodeJS.ProcessEnv = process.env): Promise<ControlPlaneAssets> {
  const dir = assetsDir ?? assetsDirFromEnv(env);
  const fromDir = (name: string): string | undefined => (dir === undefined ? undefined : join(dir, name));
  const kubeApiServer = env['TEST_ASSET_KUBE_APISERVER']?.trim() || fromDir('kube-apiserver');
  const etcd = env['TEST_ASSET_ETCD']?.trim() || fromDir('etcd');
  if (kubeApiServer === undefined || etcd === undefined) {
    throw new AssetsNotFoundError(`KUBEBUILDER_ASSETS is not set and no assetsDir was given; ${buildHint}`);
  }
  return { kubeApiServer: await checkExecutable(kubeApiServer), etcd: await checkExecutable(etcd) };
}

async function checkExecutable(path: string): Promise<string> {
  const full = resolve(path);
  let isFile: boolean;
  try {
    isFile = (await stat(full)).isFile();
  } catch {
    throw new AssetsNotFoundError(`${full} does not exist; ${buildHint}`);
  }
  if (!isFile) throw new AssetsNotFoundError(`${full} is not a file; ${buildHint}`);
  try {
    await access(full, constants.X_OK);
  } catch {
    throw new AssetsNotFoundError(`${full} is not executable (chmod +x it, or ${buildHint})`);
  }
  return full;
}
