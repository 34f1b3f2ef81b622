import { expect, test } from 'vitest';
import { waitFor } from './concurrency.js';
import { ChildProcessFailedError } from './errors.js';
import { RunnerProcess } from './runner-process.js';

test('a poll for first reconciles fails as soon as the runner exits, instead of waiting out its timeout', async () => {
  // A runner that says it is ready and then exits, as one that crashes or is killed mid-scenario does.
  const impl = {
    name: 'mcr',
    command: process.execPath,
    args: ['-e', 'console.log(JSON.stringify({ type: "ready" })); setTimeout(() => process.exit(3), 100);', '--'],
  };
  const runner = await RunnerProcess.start(impl, { provider: 'file', dir: '.', hostKubeconfig: '.', namespace: 'default', concurrency: 1 });
  try {
    // The timeout is far beyond the test's own: only noticing the exit can end this in time.
    const poll = waitFor(() => runner.reconciledAll(['c0']), 10 * 60_000, 'the first reconcile of c0', 20);
    await expect(poll).rejects.toBeInstanceOf(ChildProcessFailedError);
    await expect(poll).rejects.toThrow(/exited \(code 3\)/);
  } finally {
    await runner.stop();
  }
});
