import { describe, expect, it } from 'vitest';
import { ManagedProcess } from './managed-process.js';

const node = process.execPath;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('ManagedProcess', () => {
  it('stops a process with SIGTERM when it honours it', async () => {
    const proc = ManagedProcess.spawn({
      component: 'sleeper',
      command: node,
      args: ['-e', 'console.log("up"); setInterval(() => {}, 1000)'],
    });
    await expect.poll(() => proc.outputTail(), { timeout: 10_000 }).toContain('up');
    await proc.stop(5_000);
    expect(proc.exitStatus).toEqual({ code: null, signal: 'SIGTERM' });
    expect(isAlive(proc.pid!)).toBe(false);
  });

  it('falls back to SIGKILL when SIGTERM is ignored, and stop() is idempotent', async () => {
    const script = 'process.on("SIGTERM", () => console.log("ignoring SIGTERM")); console.log("up"); setInterval(() => {}, 1000)';
    const proc = ManagedProcess.spawn({ component: 'stubborn', command: node, args: ['-e', script] });
    await expect.poll(() => proc.outputTail(), { timeout: 10_000 }).toContain('up');
    await Promise.all([proc.stop(300), proc.stop(300)]);
    expect(proc.exitStatus?.signal).toBe('SIGKILL');
    expect(proc.outputTail()).toContain('ignoring SIGTERM');
  });

  it('reports an early exit with the error lines of its output', async () => {
    const script =
      'console.log("I0101 00:00:00.000 1 x.go:1] starting"); console.error("E0101 00:00:00.000 1 run.go:72] bind: address already in use"); process.exit(3)';
    const proc = ManagedProcess.spawn({ component: 'failing', command: node, args: ['-e', script] });
    expect(await proc.exited).toEqual({ code: 3, signal: null });
    const err = proc.failure();
    expect(err.message).toContain('failing exited with code 3 before it became ready');
    expect(err.message).toContain('address already in use');
    expect(err.message).not.toContain('starting');
    expect(err.retryable).toBe(true);
  });

  it('turns a missing binary into an exit, not a throw or an unhandled error', async () => {
    const proc = ManagedProcess.spawn({ component: 'ghost', command: '/nonexistent/binary', args: [] });
    // Spawned directly, spawn fails (no exit code); through setpriv, setpriv's exec fails (127).
    expect([null, 127]).toContain((await proc.exited).code);
    expect(proc.failure().message).toMatch(
      /^ghost exited with code (null|127) before it became ready; its last output:\n.*(ENOENT|No such file)/s,
    );
    await proc.stop();
  });

  it('keeps only a bounded tail of the output and passes every line to onOutput', async () => {
    const lines: string[] = [];
    const proc = ManagedProcess.spawn({
      component: 'chatty',
      command: node,
      args: ['-e', 'for (let i = 0; i < 2000; i++) console.log("line " + i)'],
      tailBytes: 1024,
      onOutput: (component, line) => lines.push(`${component}: ${line}`),
    });
    await proc.exited;
    expect(lines).toHaveLength(2000);
    expect(lines[1999]).toBe('chatty: line 1999');
    expect(proc.outputTail(1000).length).toBeLessThanOrEqual(1024);
    expect(proc.outputTail(1)).toBe('line 1999');
  });
});
