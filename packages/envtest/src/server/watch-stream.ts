/**
 * One open watch response: newline-delimited JSON events over a chunked 200 whose headers are flushed at once
 * (client-node's informer waits for them). Ends cleanly (timeout, shutdown) or abruptly (fault injection, a consumer
 * too slow to keep up, as the real server drops lagging watchers).
 */
import type { ServerResponse } from 'node:http';
import type { Scope } from '../storage/types.js';
import { JSON_HEADERS } from './respond.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Buffered bytes after which a consumer counts as stuck and its watch is dropped. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

export class WatchStream {
  private readonly cleanups: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    /** What the watch covers, so the CRD cleanup can end the watches of a resource it removes. */
    readonly scope: Scope,
    private readonly onClosed: (stream: WatchStream) => void,
  ) {
    res.on('close', () => this.finish());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  open(): void {
    this.res.writeHead(200, { ...JSON_HEADERS, 'Transfer-Encoding': 'chunked' });
    this.res.flushHeaders();
  }

  /** Runs `fn` once when the stream ends for any reason (timers, store subscriptions). */
  onEnd(fn: () => void): void {
    if (this.closed) fn();
    else this.cleanups.push(fn);
  }

  send(type: WatchEventType, object: unknown): void {
    if (this.closed) return;
    this.res.write(`${JSON.stringify({ type, object })}\n`);
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.abort();
  }

  /** Ends the body cleanly: clients re-watch from their last resourceVersion. */
  end(): void {
    if (this.closed) return;
    this.res.end();
    this.finish();
  }

  /** Breaks the connection mid-stream, as a crashed server or a network fault would. */
  abort(): void {
    if (this.closed) return;
    this.res.socket?.destroy();
    this.res.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.cleanups.splice(0)) fn();
    this.onClosed(this);
  }
}
