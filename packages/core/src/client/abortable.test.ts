import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abortable, linkedSignal } from './abortable.js';

describe('linkedSignal', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts on the timeout and says so', () => {
    const linked = linkedSignal(new AbortController().signal, 50);
    vi.advanceTimersByTime(49);
    expect(linked.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.timedOut).toBe(true);
    expect(String(linked.signal.reason)).toContain('timed out after 50 ms');
  });

  it('times out without a caller signal too', () => {
    const linked = linkedSignal(undefined, 10);
    vi.advanceTimersByTime(10);
    expect(linked.timedOut).toBe(true);
  });

  it('takes many concurrent children on one caller signal without a leak warning', async () => {
    const parent = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const children = Array.from({ length: 50 }, () => linkedSignal(parent.signal, 1_000));
      parent.abort();
      expect(children.every((c) => c.signal.aborted)).toBe(true);
      await new Promise((resolve) => process.nextTick(resolve)); // Node emits warnings on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('aborts with the caller’s reason and leaves no timer behind when the caller gives up first', () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal, 60_000);
    expect(vi.getTimerCount()).toBe(1);
    parent.abort(new Error('caller left'));
    expect(linked.signal.aborted).toBe(true);
    expect(linked.timedOut).toBe(false);
    expect((linked.signal.reason as Error).message).toBe('caller left');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts no timer for a caller that has already given up', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const linked = linkedSignal(parent.signal, 1_000);
    expect(linked.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('detaches from the caller on dispose, so a long-lived caller signal does not collect listeners', () => {
    const parent = new AbortController();
    const linked = linkedSignal(parent.signal, 1_000);
    linked.dispose();
    expect(vi.getTimerCount()).toBe(0);
    parent.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});

describe('abortable', () => {
  it('rejects with the signal’s reason while the shared work goes on', async () => {
    let finish!: (v: string) => void;
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const caller = new AbortController();
    const waiting = abortable(work, caller.signal);
    caller.abort(new Error('no longer needed'));
    await expect(waiting).rejects.toThrow('no longer needed');
    finish('done');
    await expect(work).resolves.toBe('done');
  });
});
