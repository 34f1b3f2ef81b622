import { defineConfig } from 'vitest/config';
import { projectDefaults } from '../../vitest.shared.js';

/** The pack-and-install test and the release test (see check.sh). Installs and child processes are slow; one worker. */
const defaults = projectDefaults('pack-test:pack');
export default defineConfig({
  ...defaults,
  test: {
    ...defaults.test,
    root: import.meta.dirname,
    include: ['src/pack.test.ts', 'src/release/release.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
  },
});
