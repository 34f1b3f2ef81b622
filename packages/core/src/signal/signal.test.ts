import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadline } from './deadline.js';
import { DeadlineExceededError } from './errors.js';
import { linkedAbort } from './linked.js';
import { abortable, sleep, whenAborted } from './wait.js';

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** Collects process warnings (MaxListenersExceeded …) emitted while `body` runs. */
async function warningsDuring(body: () => void): Promise<Error[]> {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    body();
    await new Promise((resolve) => process.nextTick(resolve)); // Node emits warnings on the next tick
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

describe('linkedAbort', () => {
  it('aborts with the reason of whichever parent aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const child = linkedAbort(a.signal, undefined, b.signal);
    b.abort(new Error('b went'));
    expect(child.signal.aborted).toBe(true);
    expect((child.signal.reason as Error).message).toBe('b went');
    a.abort();
    expect((child.signal.reason as Error).message).toBe('b went');
  });

  it('is aborted at once when a parent already is', () => {
    const gone = new AbortController();
    gone.abort(new Error('gone'));
    expect((linkedAbort(new AbortController().signal, gone.signal).signal.reason as Error).message).toBe('gone');
  });

  it('ten thousand children share one listener on a long-lived parent and leave none behind', async () => {
    const parent = new AbortController();
    const children = Array.from({ length: 10_000 }, () => linkedAbort(parent.signal));
    expect(abortListeners(parent.signal)).toBe(1);
    for (const c of children) c.dispose();
    expect(abortListeners(parent.signal)).toBe(0);
    parent.abort();
    expect(children.some((c) => c.signal.aborted)).toBe(false);

    const live = new AbortController();
    const warnings = await warningsDuring(() => {
      const many = Array.from({ length: 50 }, () => linkedAbort(live.signal));
      live.abort();
      expect(many.every((c) => c.signal.aborted)).toBe(true);
    });
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a child that aborts on its own unlinks from its parents', () => {
    const parent = new AbortController();
    const child = linkedAbort(parent.signal);
    child.abort('done');
    expect(abortListeners(parent.signal)).toBe(0);
  });
});

describe('deadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts when the time is up and says so', () => {
    const d = deadline(new AbortController().signal, 50);
    vi.advanceTimersByTime(49);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect(d.timedOut).toBe(true);
    expect(d.signal.reason).toBeInstanceOf(DeadlineExceededError);
    expect(String(d.signal.reason)).toContain('timed out after 50 ms');
  });

  it('times out without a parent too, with the reason it is given', () => {
    const d = deadline(undefined, 10, () => new Error('probe took too long'));
    vi.advanceTimersByTime(10);
    expect(d.timedOut).toBe(true);
    expect((d.signal.reason as Error).message).toBe('probe took too long');
  });

  it('follows the parent only when there is no time limit', () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, undefined);
    expect(vi.getTimerCount()).toBe(0);
    parent.abort();
    expect(d.signal.aborted).toBe(true);
    expect(d.timedOut).toBe(false);
  });

  it('aborts with the parent’s reason and leaves no timer behind when the parent gives up first', () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, 60_000);
    expect(vi.getTimerCount()).toBe(1);
    parent.abort(new Error('caller left'));
    expect(d.signal.aborted).toBe(true);
    expect(d.timedOut).toBe(false);
    expect((d.signal.reason as Error).message).toBe('caller left');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts no timer for a parent that has already given up', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const d = deadline(parent.signal, 1_000);
    expect(d.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('detaches from the parent and stops its timer on dispose', () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, 1_000);
    d.dispose();
    expect(vi.getTimerCount()).toBe(0);
    expect(abortListeners(parent.signal)).toBe(0);
    parent.abort();
    expect(d.signal.aborted).toBe(false);
  });

  it('clearTimer keeps following the parent', () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, 1_000);
    d.clearTimer();
    vi.advanceTimersByTime(2_000);
    expect(d.signal.aborted).toBe(false);
    parent.abort();
    expect(d.signal.aborted).toBe(true);
  });
});

describe('sleep', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('resolves true once the time has passed, false as soon as the signal aborts, and leaves nothing behind', async () => {
    const full = sleep(100);
    vi.advanceTimersByTime(100);
    await expect(full).resolves.toBe(true);

    const ac = new AbortController();
    const cut = sleep(60_000, ac.signal);
    expect(abortListeners(ac.signal)).toBe(1);
    ac.abort();
    await expect(cut).resolves.toBe(false);
    expect(vi.getTimerCount()).toBe(0);

    const longLived = new AbortController();
    const done = sleep(10, longLived.signal);
    vi.advanceTimersByTime(10);
    await expect(done).resolves.toBe(true);
    expect(abortListeners(longLived.signal)).toBe(0);
    await expect(sleep(10, ac.signal)).resolves.toBe(false);
  });
});

describe('whenAborted', () => {
  it('resolves when the signal aborts, at once if it already has', async () => {
    const ac = new AbortController();
    let done = false;
    const waiting = whenAborted(ac.signal).then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    ac.abort();
    await waiting;
    expect(done).toBe(true);
    await whenAborted(ac.signal);
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

  it('leaves no listener on the caller’s signal once the work settles', async () => {
    const caller = new AbortController();
    await expect(abortable(Promise.resolve(1), caller.signal)).resolves.toBe(1);
    await expect(abortable(Promise.reject(new Error('failed')), caller.signal)).rejects.toThrow('failed');
    expect(abortListeners(caller.signal)).toBe(0);
  });
});
