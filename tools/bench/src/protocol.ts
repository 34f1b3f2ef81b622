/**
 * The runner protocol: how the bench drives an implementation under test in its own process. Commands go in as JSON
 * lines on stdin, answers and events come back as JSON lines on stdout. The TypeScript runners and the Go baseline
 * (tools/go-baseline) speak it alike, so every scenario drives every implementation the same way.
 */

import { createInterface } from 'node:readline';

/**
 * The commands a bench child reads from `input` (stdin): one JSON object per line, lines that are not JSON skipped.
 * Ends when the input closes or the caller stops iterating.
 */
export async function* readCommands<T extends { cmd?: unknown }>(input: NodeJS.ReadableStream = process.stdin): AsyncGenerator<T> {
  const lines = createInterface({ input });
  try {
    for await (const line of lines) {
      let cmd: T;
      try {
        cmd = JSON.parse(line) as T;
      } catch {
        continue;
      }
      yield cmd;
    }
  } finally {
    lines.close();
  }
}

/** The writer stamps each update with its wall clock (µs since the epoch) under this annotation. */
export const SENT_AT_ANNOTATION = 'bench.multicluster-runtime.io/sent-at';

export type RunnerCommandName = 'engaged' | 'reset' | 'stats' | 'memory' | 'stop';

export interface RunnerCommand {
  id: number;
  cmd: RunnerCommandName;
}

/** Sent once, when the runner's manager (or informers) is running and watching for clusters. */
export interface ReadyMessage {
  type: 'ready';
  impl: string;
  pid: number;
}
/** Sent the first time a cluster is reconciled; `t` in µs since the epoch. */
export interface FirstReconcileMessage {
  type: 'first';
  cluster: string;
  t: number;
}

export interface EngagedReply {
  id: number;
  type: 'engaged';
  clusters: number;
}
export interface ResetReply {
  id: number;
  type: 'reset';
  cpuMs: number;
}
/** Reconciles since the last reset, and the event → reconcile latency of each (µs) that carried a sent-at stamp. */
export interface StatsReply {
  id: number;
  type: 'stats';
  reconciles: number;
  samples: number[];
  cpuMs: number;
}
/** Measured after forcing garbage collection. */
export interface MemoryReply {
  id: number;
  type: 'memory';
  heapBytes: number;
  rssBytes: number;
}
export interface StopReply {
  id: number;
  type: 'stop';
}
export interface ErrorReply {
  id: number;
  type: 'error';
  message: string;
}

export type RunnerReply = EngagedReply | ResetReply | StatsReply | MemoryReply | StopReply | ErrorReply;
export type RunnerMessage = ReadyMessage | FirstReconcileMessage | RunnerReply;

/** Wall clock in µs since the epoch, sub-millisecond, comparable across the bench's processes (Go uses UnixMicro). */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** CPU time (user and system) this process has used since it started, ms. */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
