import { fileURLToPath } from 'node:url';
import type { UserWorkspaceConfig } from 'vitest/config';

/** Fails a test, or its file, whose process emitted a Node warning (tools/test-setup). */
const failOnWarning = fileURLToPath(new URL('./tools/test-setup/src/fail-on-warning.ts', import.meta.url));

/**
 * Test settings shared by every package. Workspace packages resolve to their TypeScript sources through the
 * `@multicluster-runtime/source` export condition, so tests never depend on a stale build. A Node warning fails the
 * test file that caused it.
 */
export function projectDefaults(name: string): UserWorkspaceConfig {
  const conditions = ['@multicluster-runtime/source', 'node', 'import', 'default'];
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    test: {
      name,
      include: ['src/**/*.test.ts'],
      environment: 'node',
      testTimeout: 30_000,
      hookTimeout: 60_000,
      setupFiles: [failOnWarning],
    },
  };
}
