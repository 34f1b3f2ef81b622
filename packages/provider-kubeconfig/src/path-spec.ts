/**
 * Where the file provider looks for kubeconfigs. Each configured path is a file, a folder (every non-hidden file
 * directly inside it) or a glob; a spec lists the files it currently covers and names the directory to watch
 * for changes. Listing follows symlinked files (Kubernetes mounts Secrets and ConfigMaps as symlinks swapped
 * atomically) but not symlinked directories, so a walk cannot loop.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { globBase, globToRegExp, isGlob } from './glob.js';

export interface PathSpec {
  /** The path as configured. */
  readonly source: string;
  /** The directory to watch. */
  readonly watchDir: string;
  /** How deep below `watchDir` changes matter (undefined: any depth). */
  readonly depth: number | undefined;
  /**
   * The absolute paths of the files the spec covers now. Rejects when that cannot be told (a folder that cannot be
   * read), so callers do not mistake an unreadable folder for an empty one.
   */
  list(): Promise<string[]>;
  /** Whether `path` (absolute, as a watcher reports it) is a file the spec would list, judged by its name alone. */
  covers(path: string): boolean;
}

/** Upper bound on directory entries a glob walk visits, so a pattern like `/**` cannot walk a whole disk. */
const MAX_WALK_ENTRIES = 20_000;

/** Whether an error means "not there" (as opposed to "cannot tell", e.g. permissions or a symlink loop). */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** True for a regular file (following symlinks), false if there is none; throws when it cannot tell. */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a listed entry is a file (following a symlink); true when that cannot be told, so reading it reports why. */
async function fileOrUnknown(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return await isFile(path);
  } catch {
    return true;
  }
}

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

async function filesIn(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const files: string[] = [];
  for (const entry of entries.sort(byName)) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (await fileOrUnknown(entry, path)) files.push(path);
  }
  return files;
}

/**
 * Builds the spec for one configured path (made absolute against `cwd`, with a leading `~/` meaning the home folder). Whether a plain path is a folder is decided
 * now: a path that does not exist yet is taken to be a file.
 */
export async function pathSpec(path: string, cwd = process.cwd()): Promise<PathSpec> {
  // `~/` as in a shell, since paths in configuration files are not expanded by one.
  const expanded = path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
  const absolute = resolve(cwd, expanded);
  if (isGlob(absolute)) return globSpec(path, absolute);
  if (await isDirectory(absolute)) {
    return {
      source: path,
      watchDir: absolute,
      depth: 0,
      list: () => filesIn(absolute),
      covers: (p) => dirname(p) === absolute && !basename(p).startsWith('.'),
    };
  }
  return {
    source: path,
    watchDir: dirname(absolute),
    depth: 0,
    covers: (p) => p === absolute,
    list: async () => {
      try {
        return (await isFile(absolute)) ? [absolute] : [];
      } catch {
        return [absolute]; // reading it reports why
      }
    },
  };
}

function globSpec(source: string, absolute: string): PathSpec {
  const { base, segments } = globBase(absolute);
  const matcher = globToRegExp(absolute);
  const depth = segments.includes('**') ? undefined : Math.max(segments.length - 1, 0);
  return {
    source,
    watchDir: base,
    depth,
    covers: (p) =>
      matcher.test(p) &&
      !relative(base, p)
        .split(sep)
        .some((part) => part.startsWith('.')),
    list: async () => {
      const found: string[] = [];
      let visited = 0;
      const walk = async (dir: string, level: number): Promise<void> => {
        let entries: Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (err) {
          if (level === 0 && !isMissing(err)) throw err;
          return;
        }
        // The entries' types come with the listing: only matching names and folders to descend cost a call more.
        for (const entry of entries.sort(byName)) {
          if (entry.name.startsWith('.') || ++visited > MAX_WALK_ENTRIES) continue;
          const path = join(dir, entry.name);
          if (entry.isDirectory()) {
            if (depth === undefined || level < depth) await walk(path, level + 1);
          } else if (matcher.test(path) && (await fileOrUnknown(entry, path))) {
            found.push(path);
          }
        }
      };
      await walk(base, 0);
      return found;
    },
  };
}
