import { afterEach, describe, expect, it } from 'vitest';
import { signalHandler } from './signal-handler.js';

// Real signals sent to this test process; SIGUSR2 so an accidental escape cannot interrupt the run.
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('signalHandler', () => {
  it('aborts on the first signal and calls onSecondSignal on the second', async () => {
    const seconds: string[] = [];
    const before = process.listenerCount('SIGUSR2');
    const signal = signalHandler({ signals: ['SIGUSR2'], onSecondSignal: (s) => seconds.push(s) });
    cleanups.push(() => process.removeAllListeners('SIGUSR2'));
    expect(signal.aborted).toBe(false);
    process.kill(process.pid, 'SIGUSR2');
    await expect.poll(() => signal.aborted).toBe(true);
    expect(String((signal.reason as Error).message)).toContain('SIGUSR2');
    process.kill(process.pid, 'SIGUSR2');
    await expect.poll(() => seconds).toEqual(['SIGUSR2']);
    // The handler unhooks itself after the second signal.
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });
});
