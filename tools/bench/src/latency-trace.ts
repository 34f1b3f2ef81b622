/**
 * Where an event's latency goes, for `MCR_BENCH_LATENCY_TRACE=<dir>`. Loaded with `node --import` into the fleet
 * server and every Node runner, and imported by the bench process (which runs the writer). Each process records every
 * time its event loop did not turn for 10 ms or more, with the CPU time the process used meanwhile: about the stall's
 * length means the process was busy, far less means it was not running. The mcr runner also notes, per event, when
 * it reached the controller (an event filter, only in this mode), so its latency splits into the part before the
 * controller (writer, API server, watch, decoding, cache) and the part inside it (queue, worker, reconcile). Files
 * are written when each process exits: `stalls-<script>-<pid>.json` and `split-<pid>.json`;
 * `node tools/bench/dist/latency-trace-report.js <dir>` reads them back.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { nowMicros } from './protocol.js';

/** A turn of the event loop that came late: when the previous turn ran (µs since the epoch), how late, the CPU used. */
export interface Stall {
  atUs: number;
  ms: number;
  cpuMs: number;
}

/** One event of the mcr runner: sent by the writer, seen by the controller, reconciled (µs since the epoch). */
export type SplitEvent = [sentUs: number, controllerUs: number, reconciledUs: number];

const dir = process.env['MCR_BENCH_LATENCY_TRACE'];
const minStallUs = 10_000;

if (dir) {
  const stalls: Stall[] = [];
  let last = nowMicros();
  let lastCpu = process.cpuUsage();
  setInterval(() => {
    const now = nowMicros();
    const cpu = process.cpuUsage();
    if (now - last >= minStallUs) {
      const cpuUs = cpu.user - lastCpu.user + (cpu.system - lastCpu.system);
      stalls.push({ atUs: last, ms: (now - last) / 1000, cpuMs: cpuUs / 1000 });
    }
    last = now;
    lastCpu = cpu;
  }, 1).unref();
  const script = basename(process.argv[1] ?? 'node', '.js');
  process.on('exit', () => writeFileSync(join(dir, `stalls-${script}-${process.pid}.json`), JSON.stringify(stalls)));
}

/** Notes when each stamped event reached the controller and when it was reconciled (mcr runner, trace mode only). */
export class LatencySplit {
  /** Arrival per stamp, oldest first. An update coalesced into a newer one is never reconciled with its own stamp. */
  private readonly seen = new Map<string, number>();
  private readonly events: SplitEvent[] = [];
  private arrivalsSinceSweep = 0;

  /** `maxAgeUs`: how long an arrival waits for its reconcile before it is taken for coalesced and forgotten. */
  constructor(
    folder: string,
    private readonly maxAgeUs = 60_000_000,
  ) {
    process.on('exit', () => {
      if (this.events.length > 0) writeFileSync(join(folder, `split-${process.pid}.json`), JSON.stringify(this.events));
    });
  }

  /** The event carrying `stamp` reached the controller. */
  reachedController(stamp: string): void {
    const now = nowMicros();
    this.seen.set(stamp, now);
    if (++this.arrivalsSinceSweep < 10_000) return;
    // Forget old arrivals: their updates were coalesced into later ones, which are reconciled instead.
    this.arrivalsSinceSweep = 0;
    for (const [old, at] of this.seen) {
      if (at > now - this.maxAgeUs) break;
      this.seen.delete(old);
    }
  }

  /** Arrivals still waiting for their reconcile. */
  get pending(): number {
    return this.seen.size;
  }

  /** The object carrying `stamp` was reconciled. */
  reconciled(stamp: string): void {
    const at = this.seen.get(stamp);
    if (at === undefined) return;
    this.seen.delete(stamp);
    const sent = Number(stamp);
    if (Number.isFinite(sent) && this.events.length < 2_000_000) this.events.push([sent, at, nowMicros()]);
  }
}

/** The split recorder when `MCR_BENCH_LATENCY_TRACE` is set, otherwise undefined (and nothing is added to the runner). */
export const latencySplit: LatencySplit | undefined = dir ? new LatencySplit(dir) : undefined;
