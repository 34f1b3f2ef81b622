import { defineProject } from 'vitest/config';
import { projectDefaults } from '../../vitest.shared.js';

/**
 * The fast tests: the tarball checker against deliberately broken packages, the publish guard. The slow runs
 * (src/pack.test.ts: builds, packs, installs from the npm cache/registry; src/release/release.test.ts: nx release
 * against a local registry) have their own config, vitest.pack.config.ts, run by check.sh, so `npm test` stays
 * offline and quick.
 */
const defaults = projectDefaults('pack-test');
export default defineProject({
  ...defaults,
  test: { ...defaults.test, exclude: ['src/pack.test.ts', 'src/release/release.test.ts'] },
});
