/**
 * `npm run chaos` as CI runs it, shortened: a run with every kind of fault passes and says so, and a run whose
 * controller loses work on purpose (--sabotage) fails with the losses named, so a passing run means something.
 * Runs the built tool (dist) as a child process, as `npm run chaos` does.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const chaos = (...args: string[]) =>
  run(process.execPath, ['--expose-gc', join(root, 'tools/chaos/dist/main.js'), ...args], { cwd: root, timeout: 120_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '' }),
  );

test('a short soak under faults loses nothing and leaks nothing', async () => {
  const { code, stdout } = await chaos('--duration', '12', '--members', '4', '--settle', '45', '--seed', '11');
  expect(stdout, stdout).toContain('PASS: nothing lost, nothing leaked');
  expect(code).toBe(0);
  const injected = [...stdout.matchAll(/^([a-z0-9-]+) +(\d+)$/gm)].reduce((sum, m) => sum + Number(m[2]), 0);
  expect(injected).toBeGreaterThan(4);
  expect(stdout).toMatch(/checked: \d+ sources and \d+ derived objects in 4 members/);
}, 120_000);

test('two sharded replicas under faults, the host included, lose nothing and never reconcile one member at once', async () => {
  const { code, stdout } = await chaos('--duration', '15', '--members', '4', '--replicas', '2', '--settle', '45', '--seed', '7');
  expect(stdout, stdout).toContain('PASS: nothing lost, nothing leaked');
  expect(code).toBe(0);
  expect(stdout).toMatch(/4 members, 2 sharded replicas/);
  expect(stdout).toMatch(/^host-down-3s +\d+$/m);
  // Who reconciled what: how the members split between the replicas depends on their names (rendezvous hashing of
  // temporary paths), so one replica may own all four; nothing started for a member already disengaged.
  expect(stdout).toMatch(/^by replica: \d: [1-9]\d*(, \d: \d+)?$/m);
  expect(stdout).toMatch(/0 started for a disengaged member/);
}, 150_000);

test('a controller that loses work fails the soak, naming what was lost', async () => {
  const { code, stdout } = await chaos('--duration', '5', '--members', '2', '--settle', '3', '--seed', '5', '--sabotage');
  expect(code).toBe(1);
  expect(stdout).toMatch(/^LOST member-\d: src-\d+ has no derived object$/m);
  expect(stdout).toMatch(/FAIL: lost work: \d+ differences after the settle window/);
}, 120_000);

test('bad options exit 2 with the usage', async () => {
  const { code } = await chaos('--members', 'none');
  expect(code).toBe(2);
});
