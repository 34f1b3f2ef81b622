import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { dieWithParent } from './parent-death.js';

async function isRunning(pid: number): Promise<boolean> {
  // A zombie still answers kill(0); /proc's state tells a dead-but-unreaped process apart.
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z /.test(stat);
}

describe.runIf(process.platform === 'linux')('dieWithParent', () => {
  it('keeps the binary and its arguments last, so the child execs into them', () => {
    const { command, args } = dieWithParent('/bin/sleep', ['600']);
    expect(command.endsWith('setpriv') ? args.slice(-2) : [command, ...args].slice(-2)).toEqual(['/bin/sleep', '600']);
  });

  it('kills the child when its parent is SIGKILLed', async () => {
    const { command, args } = dieWithParent('/bin/sleep', ['600.31337']);
    // An intermediate parent spawns the child, reports its pid, and is then killed without any chance to clean up.
    const script = `const c = require('node:child_process').spawn(${JSON.stringify(command)}, ${JSON.stringify(args)}, { stdio: 'ignore' });
      console.log(c.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const childPid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    await expect.poll(() => readFile(`/proc/${childPid}/cmdline`, 'utf8'), { timeout: 5_000 }).toBe('/bin/sleep\u0000600.31337\u0000');
    parent.kill('SIGKILL');
    await expect.poll(() => isRunning(childPid), { timeout: 5_000 }).toBe(false);
  });
});
