/**
 * Whether one API server answers, as its Transport sees it: any HTTP answer means yes, a network failure means no.
 * Retry loops that back off while the server is down (informers' list/watch) wait on `whenAnswering` beside their
 * backoff delay, so a server that comes back is used within one probe period instead of after a backoff that grew
 * during the outage. While anyone waits and the server is down, one cheap probe (`GET /version`) goes out per period
 * for the whole Transport, however many loops wait: a down server is not hammered.
 */
import { sleep } from '../signal/wait.js';

/** Whether one API server answers; waiting loops resume as soon as it does (see the module comment). */
export class Reachability {
  private down = false;
  private readonly waiters = new Set<() => void>();
  /** Aborts the probe loop: set while it runs. */
  private probeStop: AbortController | undefined;

  constructor(
    /** Sends one probe; its outcome reaches `answered`/`failed` through the Transport like any request. */
    private readonly probe: (signal: AbortSignal) => Promise<unknown>,
    private readonly periodMs: number,
  ) {}

  /** The server answered a request (any status). */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    for (const wake of [...this.waiters]) wake();
  }

  /** A request failed without an answer (refused, reset, timed out, TLS failure). */
  failed(): void {
    this.down = true;
  }

  /** True once a request failed without an answer and none has been answered since. */
  get isDown(): boolean {
    return this.down;
  }

  /**
   * Resolves true when the server answers (at once if it is not known to be down), false when `signal` aborts first.
   * Starts the probe loop if it is not running.
   */
  whenAnswering(signal: AbortSignal): Promise<boolean> {
    if (!this.down) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (answered: boolean) => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', onAbort);
        if (this.waiters.size === 0) this.stopProbing();
        resolve(answered);
      };
      const wake = () => done(true);
      const onAbort = () => done(false);
      this.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
      this.startProbing();
    });
  }

  /** Stops probing (the Transport closes); waiters stay until their own signals abort. */
  close(): void {
    this.stopProbing();
  }

  private startProbing(): void {
    if (this.probeStop) return;
    const stop = new AbortController();
    this.probeStop = stop;
    void this.probeWhileWaited(stop.signal).finally(() => {
      if (this.probeStop === stop) this.probeStop = undefined;
    });
  }

  private stopProbing(): void {
    this.probeStop?.abort();
    this.probeStop = undefined;
  }

  private async probeWhileWaited(signal: AbortSignal): Promise<void> {
    while (this.down && !signal.aborted) {
      if (!(await sleep(this.periodMs, signal))) return;
      await this.probe(signal).catch(() => undefined);
    }
  }
}
