/**
 * The update stream: merge-patches ConfigMaps of the fleet's members, each stamped with the send time (µs) under
 * SENT_AT_ANNOTATION, round-robin over clusters × objects so that an object is rarely updated twice before its
 * reconcile. Open loop (a target rate, as a busy fleet produces events whether or not a controller keeps up) or
 * closed loop (as fast as the servers take them, to find the ceiling). Runs in the bench process, apart from both
 * the servers and the implementation under test.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '@multicluster-runtime/core/client';
import { BENCH_NAMESPACE, objectName } from './fleet/fleet-names.js';
import type { FleetProcess } from './fleet/fleet-process.js';
import { SENT_AT_ANNOTATION, nowMicros } from './protocol.js';
// MCR_BENCH_LATENCY_TRACE: the writer's event-loop stalls too (it stamps every update).
import './latency-trace.js';

export interface WriteResult {
  /** Updates the servers accepted. */
  written: number;
  failed: number;
  /** Open loop: sends skipped because too many were in flight (the servers fell behind the target). */
  skipped: number;
  elapsedMs: number;
  /** written per second. */
  rate: number;
}

const tickMs = 5;

export class UpdateWriter {
  private cursor = 0;

  private constructor(
    private readonly transports: Transport[],
    private readonly objects: number,
  ) {}

  /** Writes to members 0..clusters-1, objects 0..objects-1 of each. */
  static async create(fleet: FleetProcess, clusters: number, objects: number): Promise<UpdateWriter> {
    const transports: Transport[] = [];
    for (let i = 0; i < clusters; i++) {
      const kc = new KubeConfig();
      kc.loadFromString(await fleet.memberKubeconfig(i));
      transports.push(Transport.forConfig(kc, { maxConnections: 8 }));
    }
    return new UpdateWriter(transports, objects);
  }

  private async writeOne(): Promise<void> {
    const n = this.cursor++;
    const transport = this.transports[n % this.transports.length]!;
    const obj = Math.floor(n / this.transports.length) % this.objects;
    await transport.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps/${objectName(obj)}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { annotations: { [SENT_AT_ANNOTATION]: String(nowMicros()) } } },
    });
  }

  /** Sends `rate` updates per second for `durationMs`, never more than `maxInFlight` at once. */
  async openLoop(rate: number, durationMs: number, maxInFlight = 256): Promise<WriteResult> {
    const result = { written: 0, failed: 0, skipped: 0 };
    const inFlight = new Set<Promise<void>>();
    const start = performance.now();
    let due = 0;
    for (;;) {
      const elapsed = performance.now() - start;
      if (elapsed >= durationMs) break;
      const target = Math.floor((elapsed / 1000) * rate);
      while (due < target) {
        due++;
        if (inFlight.size >= maxInFlight) {
          result.skipped++;
          continue;
        }
        const p: Promise<void> = this.writeOne()
          .then(
            () => {
              result.written++;
            },
            () => {
              result.failed++;
            },
          )
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await new Promise((r) => setTimeout(r, tickMs));
    }
    await Promise.all(inFlight);
    const elapsedMs = performance.now() - start;
    return { ...result, elapsedMs, rate: result.written / (elapsedMs / 1000) };
  }

  /** Keeps `concurrency` updates in flight for `durationMs`. */
  async closedLoop(concurrency: number, durationMs: number): Promise<WriteResult> {
    const result = { written: 0, failed: 0, skipped: 0 };
    const start = performance.now();
    const worker = async (): Promise<void> => {
      while (performance.now() - start < durationMs) {
        await this.writeOne().then(
          () => {
            result.written++;
          },
          () => {
            result.failed++;
          },
        );
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsedMs = performance.now() - start;
    return { ...result, elapsedMs, rate: result.written / (elapsedMs / 1000) };
  }

  async close(): Promise<void> {
    await Promise.all(this.transports.map((t) => t.close()));
  }
}
