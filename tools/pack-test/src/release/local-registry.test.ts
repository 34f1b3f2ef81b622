import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { npmEnv } from '../consumer-project.js';
import { NotLocalRegistryError, assertLocalRegistry, assertPublishesOnlyTo } from './local-registry.js';

const local = 'http://127.0.0.1:4873/';
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A workspace with one package whose manifest has `publishConfig`, and an npmrc naming `registry`. */
function workspace(registry: string, publishConfig: Record<string, string> = { access: 'public' }) {
  const root = mkdtempSync(join(tmpdir(), 'publish-guard-'));
  roots.push(root);
  mkdirSync(join(root, 'packages/core'), { recursive: true });
  writeFileSync(
    join(root, 'packages/core/package.json'),
    JSON.stringify({ name: '@multicluster-runtime/core', version: '0.1.0', publishConfig }),
  );
  writeFileSync(join(root, 'npmrc'), `registry=${registry}\n@multicluster-runtime:registry=${registry}\n`);
  return { root, env: { ...npmEnv(), npm_config_userconfig: join(root, 'npmrc') } };
}

describe('the publish guard', () => {
  it('accepts only plain HTTP to 127.0.0.1 with a port', () => {
    expect(() => assertLocalRegistry(local, 'x')).not.toThrow();
    for (const url of [
      'https://registry.npmjs.org/',
      'http://localhost:4873/',
      'https://127.0.0.1:4873/',
      'http://127.0.0.1/',
      'http://127.0.0.2:4873/',
      '',
      undefined,
    ]) {
      expect(() => assertLocalRegistry(url, 'the registry')).toThrow(NotLocalRegistryError);
    }
  });

  it("accepts a workspace whose npm config publishes to the local registry, and refuses npm's default or a publishConfig", async () => {
    const ok = workspace(local);
    await expect(assertPublishesOnlyTo(local, ok.root, ok.env)).resolves.toBeUndefined();

    const elsewhere = workspace('https://registry.npmjs.org/');
    await expect(assertPublishesOnlyTo(local, elsewhere.root, elsewhere.env)).rejects.toThrow(
      /npm config get registry .*registry\.npmjs\.org/,
    );

    const otherPort = workspace('http://127.0.0.1:9999/');
    await expect(assertPublishesOnlyTo(local, otherPort.root, otherPort.env)).rejects.toThrow(NotLocalRegistryError);

    const pinned = workspace(local, { access: 'public', registry: 'https://registry.npmjs.org/' });
    await expect(assertPublishesOnlyTo(local, pinned.root, pinned.env)).rejects.toThrow(/publishConfig\.registry/);
  });
});
