import type { UserWorkspaceConfig } from 'vitest/config';

/**
 * Test settings shared by every package. Workspace packages resolve to their TypeScript sources through the
 * `@multicluster-runtime/source` export condition, so tests never depend on a stale build.
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
    },
  };
}
