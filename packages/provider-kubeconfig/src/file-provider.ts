/**
 * `KubeconfigFileProvider`: a fleet described by kubeconfig files on disk. Paths may be files, folders or globs;
 * every context of every file is a cluster named `<absolute path>+<context>`. Files are watched with chokidar; any
 * change triggers a debounced rescan that reloads only files whose content changed, so adds, edits, renames and
 * deletes all converge the same way; a new file that is already complete is loaded at once. The files are untrusted
 * and loaded through core's policy. A file that is half-written or otherwise unusable does not take down healthy
 * clusters: they stay on their last good config until the file is valid again or deleted. A policy rejection (the
 * file now asks for exec, say) does disengage.
 */
import { watch, type FSWatcher } from 'chokidar';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ClusterEngager, EngagerProvider } from '@multicluster-runtime/core';
import { listKubeconfigContexts, parseUntrustedKubeconfig, type ParsedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import {
  ProviderConfigError,
  absentCluster,
  describeError,
  desiredFromKubeconfig,
  refusedCluster,
  checkProviderOptions,
} from '@multicluster-runtime/core/providers';
import { anyValue } from '@multicluster-runtime/core/options';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { ClusterName, KubeconfigPolicy, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions, DesiredCluster } from '@multicluster-runtime/core/providers';
import { pathSpec, type PathSpec } from './path-spec.js';

/**
 * Options of {@link KubeconfigFileProvider}.
 */
export interface KubeconfigFileProviderOptions extends ClusterConnectionOptions {
  /** Kubeconfig files, folders (their non-hidden files) and globs (`/etc/fleet/*.kubeconfig`). Relative to the cwd. */
  paths: readonly string[];
  /** What the kubeconfigs may do beyond inline credentials. Default: nothing (no exec, auth-provider, files, no-TLS). */
  policy?: KubeconfigPolicy;
  /** Quiet time after a change before files are read again, so a file being written is read once it is complete. Default 250 ms. */
  debounceMs?: number;
  /** Between a file's path and a context's name in cluster names. Default `+`. */
  separator?: string;
  /**
   * Rescan this often even without change events, for changes file watching misses (network filesystems, exhausted
   * inotify watches, odd symlinks). Unchanged files cost a read. Default 30 s; 0 turns it off.
   */
  rescanIntervalMs?: number;
}

/** What the provider made of one file. */
export interface KubeconfigFileStatus {
  /** The contexts engaged (or being engaged) from this file. */
  readonly contexts: readonly string[];
  /** Why the file's current content is not used, if it is not. */
  readonly problem?: string;
}

/** A file's content as read: text, a problem that keeps it from being read, or gone. */
type FileContent = { kind: 'text'; text: string } | { kind: 'problem'; problem: string } | { kind: 'gone' };

interface TrackedFile {
  /** What was last acted on (the text, or the problem), to skip files that did not change. */
  seen: string;
  contexts: Set<string>;
  problem?: string;
}

const defaultMaxBytes = 1024 * 1024;

/**
 * Kubeconfig files, folders and globs on disk as a fleet: every context of every file is a member named
 * `<absolute path>+<context>`.
 */
export class KubeconfigFileProvider extends EngagerProvider {
  readonly separator: string;
  private readonly debounceMs: number;
  private readonly rescanIntervalMs: number;
  private readonly files = new Map<string, TrackedFile>();
  private debounce: { timer: ReturnType<typeof setTimeout>; firstAt: number } | undefined;
  private scanning: Promise<void> | undefined;
  private scanAgain = false;
  /** The watcher reported something since the last scan began. */
  private eventsSinceScan = false;
  private specs: PathSpec[] = [];
  private stopping = false;

  constructor(private readonly options: KubeconfigFileProviderOptions) {
    super('KubeconfigFileProvider', new ClusterEngager('kubeconfig-files', options));
    checkProviderOptions(this.providerName, options, {
      paths: anyValue,
      debounceMs: anyValue,
      separator: anyValue,
      rescanIntervalMs: anyValue,
    });
    const name = this.providerName;
    if (!Array.isArray(options?.paths) || options.paths.length === 0) {
      throw new ProviderConfigError(name, 'options.paths must list at least one kubeconfig file, folder or glob');
    }
    for (const path of options.paths) {
      if (typeof path !== 'string' || path === '') throw new ProviderConfigError(name, 'options.paths must not contain empty entries');
    }
    const debounceMs = options.debounceMs ?? 250;
    if (!Number.isFinite(debounceMs) || debounceMs < 0) {
      throw new ProviderConfigError(name, `options.debounceMs must be a non-negative number, got ${String(options.debounceMs)}`);
    }
    this.debounceMs = debounceMs;
    const rescanIntervalMs = options.rescanIntervalMs ?? 30_000;
    if (!Number.isFinite(rescanIntervalMs) || rescanIntervalMs < 0) {
      throw new ProviderConfigError(
        name,
        `options.rescanIntervalMs must be a non-negative number, got ${String(options.rescanIntervalMs)}`,
      );
    }
    this.rescanIntervalMs = rescanIntervalMs;
    this.separator = options.separator ?? '+';
    if (this.separator === '') throw new ProviderConfigError(name, 'options.separator must not be empty');
  }

  /** Watches the paths and engages their clusters through `context.aware` until `signal` aborts. */
  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    try {
      this.specs = await Promise.all(this.options.paths.map((p) => pathSpec(p)));
    } catch (err) {
      throw new ProviderConfigError(this.providerName, `bad path pattern: ${describeError(err)}`);
    }
    if (signal.aborted) return;
    this.engager.begin(context.aware, signal);
    const watchers = this.specs.map((spec) => this.watchSpec(spec));
    let interval: ReturnType<typeof setInterval> | undefined;
    try {
      // Watch first, then scan: a change during the first scan then triggers another one instead of being lost.
      await Promise.all(watchers.map((w) => new Promise<void>((resolve) => w.once('ready', () => resolve()))));
      this.rescan();
      this.log.info('watching kubeconfig files', { paths: this.specs.map((s) => s.source) });
      if (this.rescanIntervalMs > 0) interval = setInterval(() => this.rescan(), this.rescanIntervalMs);
      await whenAborted(signal);
    } finally {
      this.stopping = true;
      clearInterval(interval);
      if (this.debounce) clearTimeout(this.debounce.timer);
      this.debounce = undefined;
      await Promise.all(watchers.map((w) => w.close()));
      await this.scanning;
    }
  }

  /** What the provider made of a file (absolute path); undefined if it is not one of the watched files. */
  fileStatus(path: string): KubeconfigFileStatus | undefined {
    const file = this.files.get(path);
    if (!file) return undefined;
    return { contexts: [...file.contexts].sort(), ...(file.problem === undefined ? {} : { problem: file.problem }) };
  }

  /** The cluster name for a context of a file. */
  clusterName(path: string, context: string): ClusterName {
    return `${path}${this.separator}${context}`;
  }

  private watchSpec(spec: PathSpec): FSWatcher {
    const watcher = watch(spec.watchDir, {
      ignoreInitial: true,
      // Files the spec does not cover are neither watched (an inotify watch each) nor reported (a rescan each).
      ignored: (path, stats) => stats?.isFile() === true && !spec.covers(path),
      ...(spec.depth === undefined ? {} : { depth: spec.depth }),
    });
    watcher.on('all', (event, path) => {
      this.eventsSinceScan = true;
      if (event === 'add' || event === 'change') this.loadNewAtOnce(path);
      this.schedule();
    });
    // chokidar lists a folder before it watches it and tracks only what it saw; a file created in between is never
    // reported, not even its removal. The folder's own change events still arrive, raw: they schedule a rescan too.
    watcher.on('raw', (_event, name, details) => {
      const where = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (typeof where === 'string' && typeof name === 'string' && !spec.covers(join(where, name)) && !spec.covers(where)) return;
      this.eventsSinceScan = true;
      this.schedule();
    });
    watcher.on('error', (err) => this.log.warn('watching kubeconfig files failed', { path: spec.source, error: describeError(err) }));
    return watcher;
  }

  /**
   * A file seen for the first time whose content is already a complete, usable kubeconfig is loaded now instead of
   * after the debounce (a file renamed into place, the common case, engages in milliseconds). Anything less waits
   * for the debounced rescan as before; a known file always does, so a half-written update never touches a healthy
   * cluster. The rescan then finds the same content and does nothing.
   */
  private loadNewAtOnce(path: string): void {
    if (this.stopping || this.files.has(path) || !this.specs.some((spec) => spec.covers(path))) return;
    void this.read(path).then((content) => {
      if (this.stopping || this.files.has(path) || content.kind !== 'text') return;
      let parsed: ParsedKubeconfig;
      let contexts: string[];
      try {
        parsed = parseUntrustedKubeconfig(content.text, this.options.policy);
        contexts = listKubeconfigContexts(parsed);
      } catch {
        return; // not complete yet: the rescan will tell
      }
      if (contexts.length === 0) return;
      const desired = new Map(contexts.map((context) => [context, desiredFromKubeconfig(parsed, this.options.policy, { context })]));
      if ([...desired.values()].every((d) => d.kind === 'config')) this.load(path, content.text, content, { parsed, desired });
    });
  }

  /** Debounces rescans; a steady stream of changes still rescans at least every ten quiet periods. */
  private schedule(): void {
    if (this.stopping) return;
    const now = Date.now();
    const firstAt = this.debounce?.firstAt ?? now;
    if (this.debounce) clearTimeout(this.debounce.timer);
    const wait = Math.min(this.debounceMs, Math.max(0, firstAt + this.debounceMs * 10 - now));
    this.debounce = {
      firstAt,
      timer: setTimeout(() => {
        this.debounce = undefined;
        this.rescan();
      }, wait),
    };
  }

  /** Runs one scan at a time; a request during a scan runs another scan after it. */
  private rescan(): void {
    if (this.stopping) return;
    if (this.scanning) {
      this.scanAgain = true;
      return;
    }
    this.scanning = (async () => {
      do {
        this.scanAgain = false;
        // chokidar reports at most one change per file in 50 ms and drops the rest, so a write just after a reported
        // one (the end of a write, or a rewrite right after a new file engaged) can go unreported: after a scan that
        // followed events or saw changes, look once more when that window has passed.
        const afterEvents = this.eventsSinceScan;
        this.eventsSinceScan = false;
        try {
          const changed = await this.scan();
          if (changed || afterEvents) this.confirmLater();
          this.log.debug('scanned kubeconfig files', { changed, lookingAgain: changed || afterEvents });
        } catch (err) {
          this.log.error('scanning kubeconfig files failed', err);
        }
      } while (this.scanAgain && !this.stopping);
      this.scanning = undefined;
    })();
  }

  /** One more scan after a quiet period (at least chokidar's 50 ms window), unless events schedule one first. */
  private confirmLater(): void {
    if (this.stopping || this.debounce) return;
    const timer = setTimeout(
      () => {
        if (this.debounce?.timer === timer) this.debounce = undefined;
        this.rescan();
      },
      Math.max(this.debounceMs, 100),
    );
    this.debounce = { timer, firstAt: Date.now() };
  }

  /** Converges on what the paths hold now; resolves true if any file changed, appeared or went away. */
  private async scan(): Promise<boolean> {
    let changed = false;
    const listed = new Set<string>();
    let complete = true;
    for (const spec of this.specs) {
      try {
        for (const file of await spec.list()) listed.add(file);
      } catch (err) {
        // An unreadable folder is not an empty one: keep its clusters and look again on the next change.
        complete = false;
        this.log.warn('cannot list kubeconfig files; keeping the clusters found before', { path: spec.source, error: describeError(err) });
      }
    }
    const present = new Set<string>();
    for (const path of [...listed].sort()) {
      if (this.stopping) return changed;
      const content = await this.read(path);
      if (content.kind === 'gone') continue; // vanished since listing: handled as deleted below
      present.add(path);
      const seen = content.kind === 'text' ? content.text : `\u0000${content.problem}`;
      if (this.files.get(path)?.seen === seen) continue;
      this.load(path, seen, content);
      changed = true;
    }
    for (const [path, file] of this.files) {
      if (present.has(path) || (!complete && !listed.has(path))) continue;
      this.files.delete(path);
      changed = true;
      for (const context of file.contexts) this.engager.wish(this.clusterName(path, context), absentCluster);
      this.log.info('kubeconfig file is gone; its clusters are disengaged', { file: path });
    }
    return changed;
  }

  private async read(path: string): Promise<FileContent> {
    const maxBytes = this.options.policy?.maxBytes ?? defaultMaxBytes;
    try {
      const info = await stat(path);
      if (info.size > maxBytes) return { kind: 'problem', problem: `the file is larger than ${maxBytes} bytes` };
      return { kind: 'text', text: await readFile(path, 'utf8') };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { kind: 'gone' };
      return { kind: 'problem', problem: `the file cannot be read (${code ?? 'error'})` };
    }
  }

  /** Acts on a file's new content; `known` is what the caller already made of it (its text parsed, each context loaded). */
  private load(
    path: string,
    seen: string,
    content: Exclude<FileContent, { kind: 'gone' }>,
    known?: { parsed: ParsedKubeconfig; desired: ReadonlyMap<string, DesiredCluster> },
  ): void {
    const file = this.files.get(path) ?? { seen, contexts: new Set<string>() };
    this.files.set(path, file);
    file.seen = seen;
    let contexts: string[];
    let parsed: ParsedKubeconfig;
    try {
      if (content.kind === 'problem') throw new Error(content.problem);
      parsed = known?.parsed ?? parseUntrustedKubeconfig(content.text, this.options.policy);
      contexts = listKubeconfigContexts(parsed);
      if (contexts.length === 0) throw new Error('the kubeconfig has no contexts');
    } catch (err) {
      // The whole file is unusable (likely being written): clusters already engaged from it stay as they are.
      file.problem = describeError(err);
      this.log.warn('kubeconfig file is unusable; keeping its clusters on their last good config', {
        file: path,
        reason: file.problem,
        clusters: file.contexts.size,
      });
      for (const context of file.contexts) {
        this.engager.wish(this.clusterName(path, context), refusedCluster('invalid', `the file is unusable: ${file.problem}`, true));
      }
      return;
    }
    delete file.problem;
    const next = new Set(contexts);
    for (const context of file.contexts) {
      if (!next.has(context)) this.engager.wish(this.clusterName(path, context), absentCluster);
    }
    for (const context of next) {
      const desired =
        known?.desired.get(context) ?? desiredFromKubeconfig(parsed, this.options.policy, { context, keepEngagedOnInvalid: true });
      this.engager.wish(this.clusterName(path, context), desired);
    }
    file.contexts = next;
  }
}
