import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assetsDirFromEnv, resolveAssets } from './assets.js';
import { AssetsNotFoundError } from './errors.js';

describe('resolveAssets', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcr-assets-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function executable(name: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, '#!/bin/sh\n');
    await chmod(path, 0o755);
    return path;
  }

  it('finds both binaries in KUBEBUILDER_ASSETS', async () => {
    const [kubeApiServer, etcd] = [await executable('kube-apiserver'), await executable('etcd')];
    await expect(resolveAssets(undefined, { KUBEBUILDER_ASSETS: dir })).resolves.toEqual({ kubeApiServer, etcd });
  });

  it('prefers an explicit assetsDir over KUBEBUILDER_ASSETS', async () => {
    await executable('kube-apiserver');
    await executable('etcd');
    await expect(resolveAssets(dir, { KUBEBUILDER_ASSETS: '/nonexistent' })).resolves.toMatchObject({ etcd: join(dir, 'etcd') });
  });

  it('lets TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER name single binaries, as controller-runtime does', async () => {
    const etcd = await executable('my-etcd');
    const kubeApiServer = await executable('my-apiserver');
    await expect(resolveAssets(undefined, { TEST_ASSET_ETCD: etcd, TEST_ASSET_KUBE_APISERVER: kubeApiServer })).resolves.toEqual({
      kubeApiServer,
      etcd,
    });
  });

  it('says how to get the binaries when nothing is configured', async () => {
    const err = await resolveAssets(undefined, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssetsNotFoundError);
    expect((err as AssetsNotFoundError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/KUBEBUILDER_ASSETS is not set.*tools\/kube-apiserver\/build\.sh/);
  });

  it('names the missing binary', async () => {
    await executable('kube-apiserver');
    await expect(resolveAssets(dir, {})).rejects.toThrow(`${join(dir, 'etcd')} does not exist`);
  });

  it('rejects a binary that is not executable', async () => {
    await executable('kube-apiserver');
    await writeFile(join(dir, 'etcd'), 'not a program');
    await expect(resolveAssets(dir, {})).rejects.toThrow(/etcd is not executable/);
  });

  it('treats a blank KUBEBUILDER_ASSETS as unset', () => {
    expect(assetsDirFromEnv({ KUBEBUILDER_ASSETS: '  ' })).toBeUndefined();
    expect(assetsDirFromEnv({ KUBEBUILDER_ASSETS: dir })).toBe(dir);
  });
});
