/**
 * KindProvider runs the provider acceptance suite against the real kind CLI (sigs.k8s.io/kind, built from the Go
 * module proxy by tools/kind-cli/build.sh), which drives tools/fake-kind's docker stand-in as it would drive Docker:
 * `docker ps` for the clusters and their nodes, `docker inspect` for roles and the API server port, `docker exec`
 * for the node's admin.conf. Without Go, one skipped test says why. Every docker command the real kind ran is one the
 * stand-in knows (it fails on any other), so the suite passing means kind's own code read our fleet.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describeProviderAcceptance } from '@multicluster-runtime/core/testing';
import { test } from 'vitest';
import { fakeKindBin, kindAcceptanceFixture } from './kind-fixture.test-util.js';

const run = promisify(execFile);
const buildScript = resolve(import.meta.dirname, '../../../tools/kind-cli/build.sh');

async function realKind(): Promise<string | { skip: string }> {
  try {
    await run('go', ['version'], { timeout: 30_000 });
  } catch {
    return { skip: 'Go is not installed: the test builds the real kind CLI from sigs.k8s.io/kind' };
  }
  const { stdout } = await run(buildScript, [], { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
  return join(stdout.trim().split('\n').pop()!, 'kind');
}

const kind = await realKind();
if (typeof kind !== 'string') {
  test.skip(`real kind CLI skipped: ${kind.skip}`, () => {});
} else {
  describeProviderAcceptance(
    kindAcceptanceFixture('KindProvider (real kind CLI, docker stand-in)', kind, { PATH: `${fakeKindBin}:${process.env['PATH'] ?? ''}` }),
  );
}
