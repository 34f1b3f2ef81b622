/**
 * Lists and watches one resource of an API server through the client's Transport: the HTTP half of the watcher.
 */
import { resourcePath } from '../client/paths.js';
import type { ObjectList, ResourceMapping } from '../client/types.js';
import { formatApiVersion } from '../object/gvk.js';
import type { KubeObject } from '../object/types.js';
import type { Query } from '../client/transport-options.js';
import type { ListRequest, ListWatcher, RawWatchEvent, ServerReachability, WatchRequest } from './list-watcher.js';

/** The part of the client's `Transport` the cache needs; the real Transport satisfies it. */
export interface CacheTransport {
  /** One GET (a list page), decoded from JSON. */
  request<T>(req: { method: 'GET'; path: string; query?: Query; accept?: string; signal?: AbortSignal }): Promise<T>;
  /** Opens a watch; its events until the server ends it or `signal` aborts. */
  watch(req: { path: string; query?: Query; accept?: string; signal: AbortSignal }): Promise<AsyncIterable<RawWatchEvent>>;
  /** Whether the server answers (a Transport's); passed on to the watchers. */
  readonly reachability?: ServerReachability;
}

// Servers that cannot answer PartialObjectMetadata (an aggregated API, say) fall back to the plain JSON offered
// second; the cache's metadata-only transform then drops the rest.
const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const metadataAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** Which objects of a resource a ListWatcher made by `resourceListWatcher` sees: namespace, label and field selectors, metadata only or whole objects. */
export interface ResourceListWatchOptions {
  /** Watch one namespace only; default all namespaces (or cluster-scoped). */
  namespace?: string;
  /** Server-side label selector, API syntax. */
  labelSelector?: string;
  /** Server-side field selector, API syntax. */
  fieldSelector?: string;
  /**
   * Ask for PartialObjectMetadata: the server sends metadata only, so large objects (Secrets, ConfigMaps) cost
   * neither bandwidth nor parsing. Objects keep the resource's own apiVersion and kind, as controller-runtime does.
   */
  metadataOnly?: boolean;
}

/** A {@link ListWatcher} for `mapping` on the server behind `transport`. */
export function resourceListWatcher(
  transport: CacheTransport,
  mapping: ResourceMapping,
  options: ResourceListWatchOptions = {},
): ListWatcher {
  const path = resourcePath(mapping, options.namespace);
  const apiVersion = formatApiVersion(mapping.group, mapping.version);
  const selectors: Query = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const metadataOnly = options.metadataOnly === true;
  // Listed items omit apiVersion and kind, and metadata-only objects say PartialObjectMetadata: give every object
  // its resource's type, so listed and watched objects have one shape.
  const typed = (obj: KubeObject): KubeObject =>
    metadataOnly ? { ...obj, apiVersion, kind: mapping.kind } : { apiVersion, kind: mapping.kind, ...obj };
  return {
    resource: `${apiVersion}, Kind=${mapping.kind}`,
    ...(transport.reachability ? { reachability: transport.reachability } : {}),
    async list(req: ListRequest): Promise<ObjectList<KubeObject>> {
      const list = await transport.request<ObjectList<KubeObject>>({
        method: 'GET',
        path,
        query: { ...selectors, limit: req.limit, continue: req.continue },
        ...(metadataOnly ? { accept: metadataListAccept } : {}),
        signal: req.signal,
      });
      if (Array.isArray(list?.items)) list.items = list.items.map(typed);
      return list;
    },
    async watch(req: WatchRequest): Promise<AsyncIterable<RawWatchEvent>> {
      const events = await transport.watch({
        path,
        ...(metadataOnly ? { accept: metadataAccept } : {}),
        query: {
          ...selectors,
          watch: true,
          allowWatchBookmarks: true,
          resourceVersion: req.resourceVersion,
          timeoutSeconds: req.timeoutSeconds,
        },
        signal: req.signal,
      });
      return metadataOnly ? retyped(events, typed) : events;
    },
  };
}

/** Watch events with their objects retyped (ERROR events carry a Status, left as it is). */
async function* retyped(events: AsyncIterable<RawWatchEvent>, typed: (obj: KubeObject) => KubeObject): AsyncIterable<RawWatchEvent> {
  for await (const event of events) {
    yield event.type === 'ERROR' || !event.object ? event : { ...event, object: typed(event.object as KubeObject) };
  }
}
