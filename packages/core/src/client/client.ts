/**
 * `ApiClient`: the Client contract straight against the API server, with kinds resolved through a RESTMapper.
 * Objects go out and come back as plain JSON with `apiVersion` and `kind` filled in (list items too, which the
 * server sends without them). Lists are read in pages of 500 and joined, as client-go's pager does, unless the
 * caller asks for one page with `limit` or `continue`.
 */
import { formatApiVersion, objectKindOf } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import { InvalidRequestError, isGone } from './errors.js';
import { resourcePath } from './paths.js';
import type { Query, Transport } from './transport.js';
import type {
  Client,
  DeleteOptions,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  PatchType,
  RequestOptions,
  ResourceMapping,
  RESTMapper,
  WriteOptions,
} from './types.js';

/** The part of the Transport the client needs. */
export type ClientTransport = Pick<Transport, 'request'>;

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // Server-side apply takes YAML, and JSON is YAML: sending JSON avoids a YAML serializer.
  apply: 'application/apply-patch+yaml',
};

/** Options of an ApiClient: the page size its lists ask for. */
export interface ApiClientOptions {
  /** Page size when the client follows continue tokens itself. Default 500 (client-go's pager default). */
  pageSize?: number;
}

export class ApiClient implements Client {
  private readonly pageSize: number;

  constructor(
    private readonly transport: ClientTransport,
    private readonly restMapper: RESTMapper,
    options: ApiClientOptions = {},
  ) {
    const pageSize = options.pageSize ?? 500;
    if (!Number.isInteger(pageSize) || pageSize <= 0) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
    this.pageSize = pageSize;
  }

  async get<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, key: ObjectKey, options: RequestOptions = {}): Promise<T> {
    const mapping = await this.restMapper.mapping(kind, options);
    const obj = await this.transport.request<T>({ method: 'GET', path: itemPath(mapping, key), signal: options.signal });
    return withKind(obj, mapping);
  }

  async list<T extends KubeObjectLike = KubeObject>(kind: ObjectKind, options: ListOptions = {}): Promise<ObjectList<T>> {
    const mapping = await this.restMapper.mapping(kind, options);
    const path = resourcePath(mapping, options.namespace);
    const base: Query = {
      labelSelector: selector(options.labelSelector, 'labelSelector'),
      fieldSelector: selector(options.fieldSelector, 'fieldSelector'),
      resourceVersion: options.resourceVersion,
    };
    const page = (query: Query) =>
      this.transport.request<ObjectList<T>>({ method: 'GET', path, query: { ...base, ...query }, signal: options.signal });

    let list: ObjectList<T>;
    if (options.limit !== undefined || options.continue !== undefined) {
      list = await page({ limit: options.limit, continue: options.continue });
    } else {
      list = await this.allPages(page);
    }
    return listWithKinds(list, mapping);
  }

  async create<T extends KubeObjectLike>(obj: T, options: WriteOptions = {}): Promise<T> {
    const mapping = await this.mappingOf(obj, options);
    const path = resourcePath(mapping, namespaceFor(mapping, obj.metadata?.namespace, 'create'));
    const created = await this.transport.request<T>({
      method: 'POST',
      path,
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
    });
    return withKind(created, mapping);
  }

  update<T extends KubeObjectLike>(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(obj, options, undefined);
  }

  updateStatus<T extends KubeObjectLike>(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(obj, options, 'status');
  }

  async patch<T extends KubeObjectLike = KubeObject>(
    kind: ObjectKind,
    key: ObjectKey,
    patch: Patch,
    options: PatchOptions = {},
  ): Promise<T> {
    const contentType = patch && patchContentTypes[patch.type];
    if (!contentType) throw new InvalidRequestError(`unknown patch type ${JSON.stringify(patch?.type)}`);
    if (patch.type === 'apply' && !options.fieldManager) {
      throw new InvalidRequestError('server-side apply needs a fieldManager');
    }
    if (options.force !== undefined && patch.type !== 'apply') {
      throw new InvalidRequestError('force is only allowed for server-side apply patches');
    }
    const mapping = await this.restMapper.mapping(kind, options);
    const patched = await this.transport.request<T>({
      method: 'PATCH',
      path: itemPath(mapping, key, options.subresource),
      query: { ...writeQuery(options), force: options.force },
      body: patch.body,
      contentType,
      signal: options.signal,
    });
    return withKind(patched, mapping);
  }

  apply<T extends KubeObjectLike>(obj: T, options: PatchOptions & { fieldManager: string }): Promise<T> {
    const kind = objectKindOf(obj);
    const key = { namespace: obj.metadata?.namespace, name: nameOf(obj) };
    return this.patch<T>(kind, key, { type: 'apply', body: obj }, options);
  }

  async delete(kind: ObjectKind, key: ObjectKey, options: DeleteOptions = {}): Promise<void> {
    const mapping = await this.restMapper.mapping(kind, options);
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (options.propagationPolicy !== undefined) body['propagationPolicy'] = options.propagationPolicy;
    if (options.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = options.gracePeriodSeconds;
    if (options.preconditions !== undefined) body['preconditions'] = options.preconditions;
    // 200 (deleted, or marked for deletion with finalizers pending) and 202 (deletion accepted) both resolve.
    await this.transport.request({ method: 'DELETE', path: itemPath(mapping, key), body, signal: options.signal });
  }

  async createSubresource<R extends object = Record<string, unknown>>(
    kind: ObjectKind,
    key: ObjectKey,
    subresource: string,
    body: object,
    options: WriteOptions = {},
  ): Promise<R> {
    if (typeof subresource !== 'string' || !/^[a-z][a-z0-9-]*$/.test(subresource)) {
      throw new InvalidRequestError(`invalid subresource name ${JSON.stringify(subresource)}`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InvalidRequestError('the subresource body must be an object');
    const mapping = await this.restMapper.mapping(kind, options);
    return this.transport.request<R>({
      method: 'POST',
      path: itemPath(mapping, key, subresource),
      query: writeQuery(options),
      body,
      signal: options.signal,
    });
  }

  private async put<T extends KubeObjectLike>(obj: T, options: WriteOptions, subresource: 'status' | undefined): Promise<T> {
    const mapping = await this.mappingOf(obj, options);
    const path = itemPath(mapping, { namespace: obj.metadata?.namespace, name: nameOf(obj) }, subresource);
    const updated = await this.transport.request<T>({
      method: 'PUT',
      path,
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
    });
    return withKind(updated, mapping);
  }

  private mappingOf(obj: KubeObjectLike, options: RequestOptions): Promise<ResourceMapping> {
    if (typeof obj !== 'object' || obj === null) throw new InvalidRequestError('expected a Kubernetes object');
    let kind: ObjectKind;
    try {
      kind = objectKindOf(obj);
    } catch (err) {
      throw new InvalidRequestError((err as Error).message);
    }
    return this.restMapper.mapping(kind, options);
  }

  /** Follows continue tokens; if one expires midway (410), falls back to one unpaged list, as client-go does. */
  private async allPages<T extends KubeObjectLike>(page: (query: Query) => Promise<ObjectList<T>>): Promise<ObjectList<T>> {
    const first = await page({ limit: this.pageSize });
    const items = [...(first.items ?? [])];
    let token = first.metadata?.continue;
    while (token) {
      let next: ObjectList<T>;
      try {
        next = await page({ limit: this.pageSize, continue: token });
      } catch (err) {
        if (isGone(err)) return page({});
        throw err;
      }
      items.push(...(next.items ?? []));
      token = next.metadata?.continue;
    }
    const { continue: _done, remainingItemCount: _none, ...metadata } = first.metadata ?? {};
    return { ...first, metadata, items };
  }
}

function nameOf(obj: KubeObjectLike): string {
  const name = obj.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new InvalidRequestError('the object has no metadata.name');
  return name;
}

function namespaceFor(mapping: ResourceMapping, namespace: string | undefined, verb: string): string | undefined {
  if (!mapping.namespaced) return undefined;
  if (!namespace) throw new InvalidRequestError(`${verb} ${mapping.kind}: the kind is namespaced, so a namespace is required`);
  return namespace;
}

function itemPath(mapping: ResourceMapping, key: ObjectKey, subresource?: string): string {
  if (!key || typeof key.name !== 'string' || key.name === '') {
    throw new InvalidRequestError(`${mapping.kind}: an object key needs a name`);
  }
  return resourcePath(mapping, namespaceFor(mapping, key.namespace, 'access'), key.name, subresource);
}

function writeQuery(options: WriteOptions): Query {
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined };
}

/** A selector in the API's string syntax; a map becomes `k1=v1,k2=v2`. */
function selector(value: string | Record<string, string> | undefined, name: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value !== 'object' || value === null) throw new InvalidRequestError(`${name} must be a string or a map`);
  return (
    Object.entries(value)
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || undefined
  );
}

function withKind<T extends KubeObjectLike>(obj: T, mapping: ResourceMapping): T {
  if (typeof obj !== 'object' || obj === null) return obj;
  // DELETE may answer with a Status and PATCH/PUT with the object; only objects of this kind get filled.
  if (obj.apiVersion && obj.kind) return obj;
  return { apiVersion: formatApiVersion(mapping.group, mapping.version), kind: mapping.kind, ...obj };
}

function listWithKinds<T extends KubeObjectLike>(list: ObjectList<T>, mapping: ResourceMapping): ObjectList<T> {
  const apiVersion = formatApiVersion(mapping.group, mapping.version);
  const items = Array.isArray(list?.items) ? list.items : [];
  return {
    ...list,
    apiVersion: list?.apiVersion ?? apiVersion,
    kind: list?.kind ?? `${mapping.kind}List`,
    metadata: list?.metadata ?? {},
    items: items.map((item) => ({ ...item, apiVersion, kind: mapping.kind })),
  };
}
