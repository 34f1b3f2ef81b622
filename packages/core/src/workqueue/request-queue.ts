/** The work queue of reconcile Requests: keyed by cluster, namespace and name, fair across clusters. */
import type { MetricsRecorder } from '../metrics/types.js';
import { requestKey } from '../reconcile/request.js';
import type { Request } from '../reconcile/types.js';
import { BucketRateLimiter } from './bucket-rate-limiter.js';
import type { Clock } from './clock.js';
import { ExponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
import { MaxOfRateLimiter } from './max-of-rate-limiter.js';
import { PerGroupRateLimiter } from './per-group-rate-limiter.js';
import { newRateLimitingQueue, type RateLimitingWorkQueue } from './rate-limiting-queue.js';
import type { RateLimiter } from './types.js';

/** Options of a controller's request queue: its name (for metrics), rate limiter, metrics, and the clock. */
export interface RequestQueueOptions {
  /** The controller's name; labels the queue's metrics. */
  name: string;
  /** Default: {@link requestRateLimiter}. */
  rateLimiter?: RateLimiter<Request>;
  metrics?: MetricsRecorder;
  clock?: Clock;
}

/**
 * client-go's default controller rate limiter made fleet-aware: per-request exponential backoff (5 ms → 1000 s) and
 * a 10 qps / burst 100 token bucket per cluster rather than one for all, so one cluster's retry storm cannot delay
 * another cluster's retries.
 */
export function requestRateLimiter(clock?: Clock): RateLimiter<Request> {
  return new MaxOfRateLimiter<Request>(
    new ExponentialFailureRateLimiter<Request>({ baseDelayMs: 5, maxDelayMs: 1_000_000, key: requestKey }),
    new PerGroupRateLimiter<Request>(
      (req) => req.clusterName,
      () => new BucketRateLimiter<Request>({ qps: 10, burst: 100, ...(clock ? { clock } : {}) }),
    ),
  );
}

/** A rate-limiting queue of Requests, grouped (and `dropGroup`-able) by cluster name. */
export function newRequestQueue(options: RequestQueueOptions): RateLimitingWorkQueue<Request> {
  const clock = options.clock;
  return newRateLimitingQueue<Request>({
    name: options.name,
    key: requestKey,
    group: (req) => req.clusterName,
    rateLimiter: options.rateLimiter ?? requestRateLimiter(clock),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(clock ? { clock } : {}),
  });
}
