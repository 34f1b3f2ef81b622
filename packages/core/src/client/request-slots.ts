/**
 * How many requests of one Transport are in flight at once; the others wait here, first come first served.
 * A request aborted while it waits just leaves the queue: it never takes a connection. (undici's own pool kept such
 * a request queued and later opened a connection for it only to abort it on the spot: after a burst of abandoned
 * requests, the lists of a thousand engagements cancelled in a row, that was one TLS connection per abandoned
 * request, one after another, for minutes.)
 */
import { subscribeAbort } from '../signal/fanout.js';

export class RequestSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves with the slot's release function once a slot is free; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        unsubscribe();
        resolve(this.releaser());
      };
      const unsubscribe = subscribeAbort(signal, () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      });
      this.waiting.push(grant);
    });
  }

  /** Requests waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
