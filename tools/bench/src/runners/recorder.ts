/**
 * What a TypeScript runner's reconciler saw since the last reset: a reconcile count, event → reconcile latencies from
 * the writer's sent-at stamp, and the first reconcile of each cluster (reported at once, for engage latency).
 */
import { SENT_AT_ANNOTATION, nowMicros, type FirstReconcileMessage } from '../protocol.js';

/** Bounds memory between two stats commands; the scenarios read far fewer. */
const maxSamples = 500_000;

interface Annotated {
  metadata?: { annotations?: Record<string, string> };
}

export class Recorder {
  private reconciles = 0;
  private samples: number[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly onFirst: (msg: FirstReconcileMessage) => void) {}

  /** Records one reconcile of `obj` (undefined when the object is gone) in `cluster`. */
  record(cluster: string, obj: Annotated | undefined): void {
    const now = nowMicros();
    this.reconciles++;
    const stamp = obj?.metadata?.annotations?.[SENT_AT_ANNOTATION];
    if (stamp !== undefined && this.samples.length < maxSamples) {
      const sent = Number(stamp);
      if (Number.isFinite(sent)) this.samples.push(now - sent);
    }
    if (!this.seen.has(cluster)) {
      this.seen.add(cluster);
      this.onFirst({ type: 'first', cluster, t: now });
    }
  }

  reset(): void {
    this.reconciles = 0;
    this.samples = [];
  }

  stats(): { reconciles: number; samples: number[] } {
    return { reconciles: this.reconciles, samples: this.samples };
  }
}
