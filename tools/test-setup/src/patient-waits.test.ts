/** The shared setup makes `vi.waitFor` and `expect.poll` wait up to 10 s by default; an explicit timeout still rules. */
import { describe, expect, it, vi } from 'vitest';

/** A condition that starts holding `ms` after the call. */
function holdsAfter(ms: number): () => boolean {
  const at = Date.now() + ms;
  return () => Date.now() >= at;
}

describe('patient waits', () => {
  it('vi.waitFor waits past vitest’s 1 s default', async () => {
    const ready = holdsAfter(1_500);
    await vi.waitFor(() => expect(ready()).toBe(true));
  });

  it('expect.poll waits past vitest’s 1 s default', async () => {
    const ready = holdsAfter(1_500);
    await expect.poll(ready).toBe(true);
  });

  it('an explicit timeout still ends the wait', async () => {
    const never = () => false;
    const started = Date.now();
    await expect(vi.waitFor(() => expect(never()).toBe(true), { timeout: 200 })).rejects.toThrow();
    await expect(vi.waitFor(() => expect(never()).toBe(true), 200)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
