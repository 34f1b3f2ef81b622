/**
 * Re-reading files when they change: the folders holding them are watched with chokidar (Secret volumes rotate by
 * swapping a symlink in the folder, so watching the file alone would miss it) and re-read on a slow timer as a
 * safety net. Reads run one at a time; requests during a read coalesce into one more read.
 */
import { dirname, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '@multicluster-runtime/core';

export class FileWatch {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private closed = false;

  /** `read` resolves true when the files were usable, false to be retried shortly (e.g. mid-rotation). */
  constructor(
    private readonly paths: readonly string[],
    private readonly read: () => Promise<boolean>,
    private readonly log: Logger,
    private readonly recheckMs = 10_000,
  ) {}

  start(): void {
    const dirs = new Set(this.paths.map((p) => dirname(resolve(p))));
    this.watcher = watch([...dirs], { ignoreInitial: true, depth: 0 });
    this.watcher.on('all', () => this.trigger());
    this.watcher.on('error', (err) => this.log.warn('watching files failed', { paths: this.paths, error: String(err) }));
    this.timer = setInterval(() => this.trigger(), this.recheckMs);
    this.timer.unref();
  }

  /** Reads now (after any read in progress). */
  trigger(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      let failures = 0;
      do {
        this.again = false;
        clearTimeout(this.retry);
        if (await this.read()) failures = 0;
        else if (!this.closed && ++failures < 600) {
          this.retry = setTimeout(() => this.trigger(), Math.min(1000, 50 * failures));
          this.retry.unref();
        }
      } while (this.again && !this.closed);
      this.reading = undefined;
    })();
  }

  /** Resolves once no read is in progress. */
  async settled(): Promise<void> {
    while (this.reading) await this.reading;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
    await this.watcher?.close();
    await this.settled();
  }
}
