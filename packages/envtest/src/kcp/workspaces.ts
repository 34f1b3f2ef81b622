/**
 * The fake kcp's workspaces: each has a path (`root:org:ws`), a stable logical cluster name derived from it (a hash,
 * like kcp's, so code that confuses paths and names fails in tests as it would against kcp) and the shard it lives on.
 */
import { createHash } from 'node:crypto';
import { KcpFixtureError } from './errors.js';

/**
 * A workspace of the fake kcp: its path, logical cluster name and shard.
 */
export interface Workspace {
  /** The logical cluster name: what `kcp.io/cluster` annotations and `/clusters/<name>` URLs carry. */
  readonly name: string;
  /** The workspace path, e.g. `root:consumer` (also accepted in `/clusters/<path>` URLs, as kcp's front proxy does). */
  readonly path: string;
  readonly shard: string;
}

const SEGMENT = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** `root` keeps its name; every other workspace gets 16 hex characters of the path's hash. */
export function logicalClusterNameOf(path: string): string {
  return path === 'root' ? 'root' : createHash('sha256').update(path).digest('hex').slice(0, 16);
}

export class WorkspaceDirectory {
  private readonly byPath = new Map<string, Workspace>();
  private readonly byName = new Map<string, Workspace>();

  add(path: string, shard: string): Workspace {
    const segments = path.split(':');
    if (segments[0] !== 'root' || !segments.every((s) => SEGMENT.test(s))) {
      throw new KcpFixtureError(`invalid workspace path ${JSON.stringify(path)}: want root or root:<name>[:<name>…] with DNS-label names`);
    }
    const existing = this.byPath.get(path);
    if (existing) return existing;
    const ws: Workspace = { name: logicalClusterNameOf(path), path, shard };
    this.byPath.set(path, ws);
    this.byName.set(ws.name, ws);
    return ws;
  }

  byPathOrName(pathOrName: string): Workspace | undefined {
    return this.byPath.get(pathOrName) ?? this.byName.get(pathOrName);
  }

  shardOf(cluster: string): string | undefined {
    return this.byName.get(cluster)?.shard;
  }
}
