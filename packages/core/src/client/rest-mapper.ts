/**
 * Kind → resource mapping from API discovery. Only the group-version a lookup asks for is read (`/api/v1` or
 * `/apis/<group>/<version>`), never the whole server, so a cluster with hundreds of CRDs costs one small request per
 * group-version actually used. Lists are cached; a kind missing from a cached list makes that list be read again
 * once (a CRD may have just been established). Concurrent lookups of one group-version share one request.
 */
import { formatApiVersion, parseApiVersion } from '../object/gvk.js';
import type { ObjectKind } from '../object/types.js';
import { abortable } from '../signal/wait.js';
import { NoKindMatchError, isNotFound } from './errors.js';
import { groupVersionPath } from './paths.js';
import type { RequestOptions, ResourceMapping, RESTMapper } from './types.js';

/** The part of the Transport discovery needs. */
export interface DiscoveryTransport {
  /** One discovery GET, decoded from JSON. */
  request<T>(req: { method: 'GET'; path: string; signal?: AbortSignal }): Promise<T>;
}

/** One entry of an APIResourceList. */
interface APIResource {
  name: string;
  kind: string;
  namespaced: boolean;
  group?: string;
  version?: string;
}

interface APIResourceList {
  groupVersion?: string;
  resources?: APIResource[];
}

/** A group-version's resources by kind; `undefined` when the server does not serve the group-version. */
type KindTable = Map<string, ResourceMapping> | undefined;

interface Entry {
  /** The table, or the in-flight read of it. */
  table: Promise<KindTable>;
  /** Bumped on every read, so a lookup can tell whether the table it saw was replaced since. */
  generation: number;
}

export class DiscoveryRESTMapper implements RESTMapper {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

  constructor(private readonly transport: DiscoveryTransport) {}

  async mapping(kind: ObjectKind, options: RequestOptions = {}): Promise<ResourceMapping> {
    if (!kind || typeof kind.apiVersion !== 'string' || typeof kind.kind !== 'string' || kind.apiVersion === '' || kind.kind === '') {
      throw new TypeError(`a kind needs a non-empty apiVersion and kind, got ${JSON.stringify(kind)}`);
    }
    const { group, version } = parseApiVersion(kind.apiVersion);
    const gv = formatApiVersion(group, version);
    let entry = this.entries.get(gv);
    let fresh = false;
    if (!entry) {
      entry = this.read(group, version);
      fresh = true;
    }
    let found = (await abortable(entry.table, options.signal))?.get(kind.kind);
    if (found) return found;
    if (!fresh) {
      // Missing from a table read earlier: read it again, unless another lookup already did since we looked.
      const current = this.entries.get(gv);
      const again = current && current.generation !== entry.generation ? current : this.read(group, version);
      found = (await abortable(again.table, options.signal))?.get(kind.kind);
      if (found) return found;
    }
    throw new NoKindMatchError({ apiVersion: kind.apiVersion, kind: kind.kind });
  }

  /** Forgets every cached group-version; the next lookups read discovery again. */
  reset(): void {
    this.entries.clear();
  }

  /** Starts reading one group-version and caches the read; a failed read is not cached. */
  private read(group: string, version: string): Entry {
    const gv = formatApiVersion(group, version);
    // The read is shared, so it is not tied to one caller's signal; each caller's wait is.
    const table = this.transport.request<APIResourceList>({ method: 'GET', path: groupVersionPath(group, version) }).then(
      (list) => tableOf(group, version, list),
      (err: unknown) => {
        if (isNotFound(err)) return undefined;
        if (this.entries.get(gv) === entry) this.entries.delete(gv);
        throw err;
      },
    );
    const entry: Entry = { table, generation: ++this.generation };
    // A rejection is delivered to every waiter; this keeps an unobserved one from being reported as unhandled.
    table.catch(() => undefined);
    this.entries.set(gv, entry);
    return entry;
  }
}

function tableOf(group: string, version: string, list: APIResourceList | undefined): KindTable {
  const resources = Array.isArray(list?.resources) ? list.resources : [];
  const names = new Set(resources.map((r) => r?.name));
  const table = new Map<string, ResourceMapping>();
  for (const r of resources) {
    if (!r || typeof r.name !== 'string' || typeof r.kind !== 'string' || r.name.includes('/')) continue;
    // Several resources can share a kind (e.g. a kind served under two names); the first listed wins, as in client-go.
    if (table.has(r.kind)) continue;
    table.set(r.kind, {
      group,
      version,
      kind: r.kind,
      resource: r.name,
      namespaced: r.namespaced === true,
      hasStatus: names.has(`${r.name}/status`),
    });
  }
  return table;
}
