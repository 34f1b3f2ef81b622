/**
 * One open watch response: newline-delimited JSON events over a chunked 200 whose headers are flushed at once
 * (client-node's informer waits for them). Ends cleanly (timeout, shutdown) or abruptly (fault injection, a consumer
 * too slow to keep up, as the real server drops lagging watchers).
 *
 * Events sent in one turn of the event loop go out as one write: a server handling several writes at once (a busy
 * fleet, a relist's initial events) makes one chunk and one system call per watcher, not one per event.
 */
import type { ServerResponse } from 'node:http';
import type { Scope } from '../storage/types.js';
import { JSON_HEADERS } from './respond.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Buffered bytes after which a consumer counts as stuck and its watch is dropped. */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

/** Events held for the end of the turn are written at once beyond this many characters. */
const MAX_PENDING_CHARS = 256 * 1024;

export class WatchStream {
  private readonly cleanups: (() => void)[] = [];
  private closed = false;
  /** Event lines sent this turn, written together by {@link flush}. */
  private pending: string[] = [];
  private pendingChars = 0;
  private flushScheduled = false;

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

  /** Queues one event; it is written at the end of this turn of the event loop, with any others sent meanwhile. */
  send(type: WatchEventType, object: unknown): void {
    if (this.closed) return;
    const line = `${JSON.stringify({ type, object })}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars > MAX_PENDING_CHARS) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushAtEndOfTurn);
    }
  }

  /** Ends the body cleanly, after the events already sent: clients re-watch from their last resourceVersion. */
  end(): void {
    if (this.closed) return;
    this.flush();
    if (this.closed) return;
    this.res.end();
    this.finish();
  }

  /**
   * Breaks the connection mid-stream, as a crashed server or a network fault would. The events already sent are written
   * first, but whatever the socket has not handed to the kernel when it is destroyed is lost, as in a real crash.
   */
  abort(): void {
    if (this.closed) return;
    this.write();
    this.res.socket?.destroy();
    this.res.destroy();
    this.finish();
  }

  private readonly flushAtEndOfTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /** Writes what is pending; a consumer that has fallen too far behind loses its watch. */
  private flush(): void {
    if (this.closed) return;
    this.write();
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.abort();
  }

  private write(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.res.write(text);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.pendingChars = 0;
    for (const fn of this.cleanups.splice(0)) fn();
    this.onClosed(this);
  }
}
