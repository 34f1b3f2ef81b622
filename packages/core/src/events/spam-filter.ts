/**
 * Per-object spam limit, as client-go record's EventSourceObjectSpamFilter: a token bucket per (reporting controller,
 * object) — by default a burst of 25 writes, then one every 5 minutes. Each API write (a new Event or a series update)
 * takes a token. Buckets that refilled completely are forgotten, and at most `maxObjects` are kept (oldest first out).
 */

export interface SpamLimit {
  /** Writes allowed at once per object. Default 25. */
  burst?: number;
  /** One more write is allowed every this many ms. Default 300,000 (5 minutes). */
  refillEveryMs?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class SpamFilter {
  private readonly burst: number;
  private readonly refillEveryMs: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    limit: SpamLimit = {},
    private readonly maxObjects = 4096,
  ) {
    this.burst = limit.burst ?? 25;
    this.refillEveryMs = limit.refillEveryMs ?? 300_000;
    if (!Number.isInteger(this.burst) || this.burst < 1) throw new RangeError(`spam burst must be a positive integer, got ${this.burst}`);
    if (!(this.refillEveryMs > 0)) throw new RangeError(`spam refillEveryMs must be positive, got ${this.refillEveryMs}`);
  }

  /** Takes a token for `key` at time `now`; false when the object is over its limit. */
  take(key: string, now: number): boolean {
    const bucket = this.refilled(key, now);
    this.buckets.delete(key); // re-inserted last: the map's order is least recently used first
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return false;
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    while (this.buckets.size > this.maxObjects) this.buckets.delete(this.buckets.keys().next().value as string);
    return true;
  }

  /** Forgets buckets that are full again (they behave as new ones). */
  prune(now: number): void {
    for (const key of [...this.buckets.keys()]) if (this.refilled(key, now).tokens >= this.burst) this.buckets.delete(key);
  }

  private refilled(key: string, now: number): Bucket {
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    const gained = Math.floor((now - b.at) / this.refillEveryMs);
    if (gained > 0) {
      b.tokens = Math.min(this.burst, b.tokens + gained);
      b.at = b.tokens >= this.burst ? now : b.at + gained * this.refillEveryMs;
    }
    return b;
  }
}
