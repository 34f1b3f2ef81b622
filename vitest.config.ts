import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'tools/*/vitest.config.ts', 'examples/*/vitest.config.ts'],
    // Two cores: integration suites start API servers, so keep file-level parallelism modest.
    maxWorkers: 2,
  },
});
