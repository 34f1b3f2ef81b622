/** The work queue of reconcile Requests: keyed by cluster, namespace and name, fair across clusters. */
import type { MetricsRecorder } from '../metrics/types.js';
import { requestKey } from '../reconcile/request.js';
import type { Request } from '../reconcile/types.js';
import type { Clock } from './clock.js';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter.js';
import { newRateLimitingQueue, type RateLimitingWorkQueue } from './rate-limiting-queue.js';
import type { RateLimiter } from './types.js';

export interface RequestQueueOptions {
  /** The controller's name; labels the queue's metrics. */
  name: string;
  /** Default: {@link defaultControllerRateLimiter} keyed by {@link requestKey}. */
  rateLimiter?: RateLimiter<Request>;
  metrics?: MetricsRecorder;
  clock?: Clock;
}

/** A rate-limiting queue of Requests, grouped (and `dropGroup`-able) by cluster name. */
export function newRequestQueue(options: RequestQueueOptions): RateLimitingWorkQueue<Request> {
  const clock = options.clock;
  return newRateLimitingQueue<Request>({
    name: options.name,
    key: requestKey,
    group: (req) => req.clusterName,
    rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter({ key: requestKey, ...(clock ? { clock } : {}) }),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(clock ? { clock } : {}),
  });
}
