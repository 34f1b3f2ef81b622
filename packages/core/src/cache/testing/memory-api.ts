/**
 * Test double for the cache's transport and REST mapper: a few collections in memory with list (one page) and watch
 * streams fed by writes. Enough to drive the InformerCache's bookkeeping fast; protocol behaviour is tested against
 * the envtest API server.
 */
import { NoKindMatchError } from '../../client/errors.js';
import type { ObjectList, ResourceMapping, RESTMapper } from '../../client/types.js';
import { kindKey } from '../../object/gvk.js';
import type { KubeObject, ObjectKind } from '../../object/types.js';
import type { RawWatchEvent } from '../list-watcher.js';
import type { CacheTransport } from '../resource-list-watcher.js';
import { WatchChannel } from './scripted-source.js';

type Query = Record<string, string | number | boolean | undefined>;

export const configMaps: ResourceMapping = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  namespaced: true,
  hasStatus: false,
};
export const namespaces: ResourceMapping = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  namespaced: false,
  hasStatus: true,
};

export class MemoryApi implements CacheTransport, RESTMapper {
  private rv = 100;
  private readonly collections = new Map<string, Map<string, KubeObject>>();
  private readonly watchers = new Set<{ path: string; channel: WatchChannel }>();
  readonly requests: Array<{ path: string; query: Query }> = [];
  mappingCalls = 0;

  constructor(private readonly mappings: ResourceMapping[] = [configMaps, namespaces]) {}

  get openWatches(): number {
    return this.watchers.size;
  }

  /** Creates or replaces an object and tells open watches. */
  write(mapping: ResourceMapping, obj: KubeObject): KubeObject {
    const path = collectionPath(mapping);
    const items = this.collections.get(path) ?? new Map<string, KubeObject>();
    this.collections.set(path, items);
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    const type = items.has(key) ? 'MODIFIED' : 'ADDED';
    items.set(key, stored);
    this.emit(path, { type, object: stored });
    return stored;
  }

  remove(mapping: ResourceMapping, namespace: string | undefined, name: string): void {
    const path = collectionPath(mapping);
    const key = `${namespace ?? ''}/${name}`;
    const old = this.collections.get(path)?.get(key);
    if (!old) return;
    this.collections.get(path)?.delete(key);
    this.emit(path, { type: 'DELETED', object: { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } } });
  }

  request<T>(req: { method: 'GET'; path: string; query?: Query; signal?: AbortSignal }): Promise<T> {
    this.requests.push({ path: req.path, query: req.query ?? {} });
    const items = [...(this.collections.get(req.path)?.values() ?? [])].map(({ apiVersion: _a, kind: _k, ...rest }) => rest as KubeObject);
    const list: ObjectList = { metadata: { resourceVersion: String(this.rv) }, items };
    return Promise.resolve(list as T);
  }

  async watch(req: { path: string; query?: Query; signal: AbortSignal }): Promise<AsyncIterable<RawWatchEvent>> {
    this.requests.push({ path: req.path, query: req.query ?? {} });
    const channel = new WatchChannel();
    const entry = { path: req.path, channel };
    this.watchers.add(entry);
    req.signal.addEventListener('abort', () => this.watchers.delete(entry), { once: true });
    const iterable = channel.step()({ resourceVersion: '', timeoutSeconds: 1, signal: req.signal });
    return iterable;
  }

  mapping(kind: ObjectKind): Promise<ResourceMapping> {
    this.mappingCalls++;
    const found = this.mappings.find(
      (m) => kindKey({ apiVersion: m.group ? `${m.group}/${m.version}` : m.version, kind: m.kind }) === kindKey(kind),
    );
    if (!found) return Promise.reject(new NoKindMatchError(kind));
    return Promise.resolve(found);
  }

  reset(): void {}

  private emit(path: string, event: RawWatchEvent): void {
    for (const w of this.watchers) if (w.path === path) w.channel.push(event);
  }
}

function collectionPath(mapping: ResourceMapping): string {
  return `${mapping.group ? `/apis/${mapping.group}` : '/api'}/${mapping.version}/${mapping.resource}`;
}
