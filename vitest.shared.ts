import { fileURLToPath } from 'node:url';
import type { UserWorkspaceConfig } from 'vitest/config';

/** Fails a test, or its file, whose process emitted a Node warning; waits patiently for conditions (tools/test-setup). */
const setupFiles = ['fail-on-warning.ts', 'patient-waits.ts'].map((f) =>
  fileURLToPath(new URL(`./tools/test-setup/src/${f}`, import.meta.url)),
);

/**
 * Test settings shared by every package. Workspace packages resolve to their TypeScript sources through the
 * `@multicluster-runtime/source` export condition, so tests never depend on a stale build. A Node warning fails the
 * test file that caused it, and waits for a condition default to 10 s.
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
      setupFiles,
      // 10 s, not 1 s, as for vi.waitFor (tools/test-setup/src/patient-waits.ts): conditions that need an HTTP round
      // trip take longer than a second on a busy 2-core machine.
      expect: { poll: { timeout: 10_000 } },
    },
  };
}
