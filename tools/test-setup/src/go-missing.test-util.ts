/** Whether a test that needs Go can run: tests that build or fetch from Go modules skip, saying why, without it. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Undefined when `go` runs; otherwise the reason to skip, ending with what the test needs Go for (`needs`). */
export async function goMissing(needs: string): Promise<string | undefined> {
  try {
    await run('go', ['version'], { timeout: 30_000 });
    return undefined;
  } catch {
    return `Go is not installed (no \`go\` on PATH); ${needs}`;
  }
}
