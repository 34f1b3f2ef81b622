/** Test helpers: a queue that records what handlers add, and a Cluster whose only live part is its RESTMapper. */
import type { Cluster } from '../cluster/types.js';
import type { ResourceMapping, RESTMapper } from '../client/types.js';
import type { ObjectKind } from '../object/types.js';
import type { Request } from '../reconcile/types.js';
import type { RequestQueue } from './types.js';

export class RecordingQueue implements RequestQueue {
  readonly added: Request[] = [];
  add(req: Request): void {
    this.added.push(req);
  }
  addAfter(): void {
    throw new Error('handlers must not delay');
  }
  addRateLimited(): void {
    throw new Error('handlers must not rate-limit');
  }
}

/** A RESTMapper answering from a table, counting lookups; `fail` makes lookups reject. */
export class TableRESTMapper implements RESTMapper {
  lookups = 0;
  fail = false;
  constructor(private readonly namespaced: Record<string, boolean>) {}
  async mapping(kind: ObjectKind): Promise<ResourceMapping> {
    this.lookups++;
    await Promise.resolve();
    const ns = this.namespaced[kind.kind];
    if (this.fail || ns === undefined) throw new Error(`no matches for kind ${kind.kind}`);
    const [group, version] = kind.apiVersion.includes('/') ? kind.apiVersion.split('/') : ['', kind.apiVersion];
    return { group: group!, version: version!, kind: kind.kind, resource: `${kind.kind.toLowerCase()}s`, namespaced: ns, hasStatus: false };
  }
  reset(): void {}
}

/** A Cluster for handler tests: only `name` and `restMapper` are usable. */
export function testCluster(name: string, restMapper: RESTMapper = new TableRESTMapper({})): Cluster {
  const unusable = (): never => {
    throw new Error('not available in handler tests');
  };
  return {
    name,
    restMapper,
    get config() {
      return unusable();
    },
    get client() {
      return unusable();
    },
    get apiReader() {
      return unusable();
    },
    get cache() {
      return unusable();
    },
    get fieldIndexer() {
      return unusable();
    },
    getEventRecorderFor: unusable,
    start: unusable,
    waitForCacheSync: unusable,
  };
}
