/**
 * The watcher's retry delay: jittered exponential backoff that starts over after a healthy period, the policy
 * client-go's reflector and kube-rs's `DefaultBackoff` share (800 ms doubling to 30 s, reset after 120 s quiet).
 */

export interface BackoffOptions {
  /** First delay. Default 800 ms. */
  initialMs?: number;
  /** Cap on the delay before jitter. Default 30 s. */
  maxMs?: number;
  /** Growth per consecutive failure. Default 2. */
  factor?: number;
  /** Each delay is scaled by a random factor in [1 - jitter, 1 + jitter]. Default 0.2. */
  jitter?: number;
  /** A failure this long after the previous one starts from `initialMs` again. Default 120 s. */
  resetAfterMs?: number;
  /** Injected for tests; default `Math.random`. */
  random?: () => number;
  /** Injected for tests; default `Date.now`. */
  now?: () => number;
}

/** Hands out the delay before each retry. Not shared: one per retry loop. */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private attempt = 0;
  private lastFailureAt: number | undefined;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 0.2;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    if (!(this.initialMs >= 0) || !(this.maxMs >= this.initialMs) || !(this.factor >= 1)) {
      throw new RangeError(
        `invalid backoff: need 0 <= initialMs <= maxMs and factor >= 1 (got ${this.initialMs}, ${this.maxMs}, ${this.factor})`,
      );
    }
    if (!(this.jitter >= 0 && this.jitter < 1)) throw new RangeError(`invalid backoff jitter ${this.jitter}: need [0, 1)`);
  }

  /** The delay before the next retry, in milliseconds. Call once per failure. */
  next(): number {
    const now = this.now();
    // Failures far apart are separate incidents: a watch that was healthy for minutes should retry quickly.
    if (this.lastFailureAt !== undefined && now - this.lastFailureAt >= this.resetAfterMs) this.attempt = 0;
    this.lastFailureAt = now;
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    if (base < this.maxMs) this.attempt++;
    const scale = 1 - this.jitter + 2 * this.jitter * this.random();
    return Math.round(base * scale);
  }

  /** Forget past failures (after a success that proves the connection healthy). */
  reset(): void {
    this.attempt = 0;
    this.lastFailureAt = undefined;
  }
}
