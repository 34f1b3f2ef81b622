/**
 * The request pipeline: count, authenticate, inject latency, route, run the verb, answer. Every failure becomes a
 * Status response; nothing a client sends can crash the server or leave a request hanging.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { ResourceType, Verb } from '../api/resource-type.js';
import { groupVersion } from '../api/resource-type.js';
import {
  StatusError,
  internalError,
  methodNotSupported,
  notFound,
  resourceNotFound,
  serviceUnavailable,
  unauthorized,
} from '../api/status-error.js';
import type { UserInfo } from '../auth/authenticator.js';
import { forbiddenFor } from '../auth/authorizer.js';
import { impersonate } from '../auth/impersonation.js';
import type { ApiState } from './api-state.js';
import { decodeObjectBody, mediaType, readBody } from './body.js';
import { writeCoreVersions, writeGroup, writeGroups, writeOpenApiV2, writeResourceList, VERSION_INFO } from './handlers/discovery.js';
import { handleAction } from './handlers/action.js';
import { handleScale } from './handlers/scale.js';
import { handleList } from './handlers/list.js';
import { handleWatch } from './handlers/watch.js';
import { parseListOptions, withNameSelector } from './list-options.js';
import { queryBool } from './query.js';
import type { CollectionTarget, ObjectTarget } from './object-target.js';
import { objectKey, present } from './object-target.js';
import { admittedCreate, admittedDelete, admittedDeleteCollection, admittedUpdate } from './admission/admitted-write.js';
import { objectFromBody } from './ops/body-checks.js';
import { deleteObject } from './ops/delete.js';
import { patchObject } from './ops/patch.js';
import { updateObject } from './ops/update.js';
import { writeJson, writeNotFoundPage, writeStatusError, writeText } from './respond.js';
import { contentTypeOf, negotiate, renderObject } from './representation.js';
import { resolveRoute } from './route.js';
import { WILDCARD, isLogicalClusterName, splitClusterPath } from '../cluster-path.js';
import { MountedRegistry, mountAllowsWrites, mountShowsCluster, mountedCollection, resolveMount } from './mounts.js';
import { seedCluster } from './seed.js';
import { parseDeleteOptions, parseWriteParams } from './write-params.js';

const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);
const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export async function handleRequest(state: ApiState, req: IncomingMessage, res: ServerResponse, serverAddress: string): Promise<void> {
  state.counters.requests++;
  try {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const auth = state.auth.authenticate(req);
    if (!PUBLIC_PATHS.has(path) && !auth.ok) throw unauthorized();
    const user: UserInfo = auth.ok ? impersonate(req, auth.user, state.authorizer) : ANONYMOUS;
    if (state.faults.latencyMs > 0) {
      const stopped = await delay(state.faults.latencyMs, false, { signal: state.requestSignal }).catch(() => true);
      if (stopped) return void res.destroy();
    }
    if (res.destroyed) return;
    await route(state, req, res, url, path, serverAddress, user);
  } catch (err) {
    if (err instanceof StatusError) writeStatusError(res, err);
    else writeStatusError(res, internalError(err instanceof Error ? err.message : String(err)));
  }
}

async function route(
  state: ApiState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  fullPath: string,
  serverAddress: string,
  user: UserInfo,
): Promise<void> {
  let cluster: string | undefined = '';
  let path = fullPath;
  const view = state.options.logicalClusters ? resolveMount(state.options.mounts, fullPath) : undefined;
  if (view) {
    cluster = view.cluster === WILDCARD ? undefined : view.cluster;
    path = view.path;
    if (view.signal?.aborted) throw serviceUnavailable('the server behind this path is unavailable');
    if (cluster !== undefined && (!isLogicalClusterName(cluster) || !mountShowsCluster(view, cluster))) return writeNotFoundPage(res);
    if (cluster) seedCluster(state, cluster);
  } else if (state.options.logicalClusters) {
    const split = splitClusterPath(fullPath);
    if ('invalid' in split) return writeNotFoundPage(res);
    ({ cluster, path } = split);
    if (cluster) seedCluster(state, cluster);
  }
  const registry = view ? new MountedRegistry(state.registry, view, () => state.seededClusters) : state.registry;
  switch (path) {
    case '/healthz':
    case '/livez':
    case '/readyz':
      return writeText(res, 200, 'ok');
    case '/version':
      return writeJson(res, 200, VERSION_INFO);
    case '/openapi/v2':
      return writeOpenApiV2(res);
  }
  const r = resolveRoute(registry, path, cluster, state.actions);
  const readOnly = req.method === 'GET' || req.method === 'HEAD';
  switch (r.kind) {
    case 'notFound':
      return r.apiStatus ? writeStatusError(res, resourceNotFound()) : writeNotFoundPage(res);
    case 'coreVersions':
      return readOnly ? writeCoreVersions(res, serverAddress) : writeNotFoundPage(res);
    case 'groups':
      return readOnly ? writeGroups(res, registry, cluster) : writeNotFoundPage(res);
    case 'group':
      return readOnly ? writeGroup(res, registry, cluster, r.group) : writeNotFoundPage(res);
    case 'groupVersion':
      return readOnly ? writeResourceList(res, registry, cluster, r.group, r.version, state.actions) : writeNotFoundPage(res);
    case 'resource': {
      if (view && cluster !== undefined && !mountShowsCluster(view, cluster, r.collection.type)) throw resourceNotFound();
      const { type } = r.collection;
      const action =
        r.subresource === undefined || type.subresources.includes(r.subresource)
          ? undefined
          : state.actions.get(type.group, type.resource, r.subresource);
      if (action) return handleAction(state, req, res, view ? mountedCollection(view, r.collection) : r.collection, r.name!, action, user);
      if (view && !mountAllowsWrites(view, r.collection.type) && !readOnly) {
        const verb = verbOf(req.method, r.name !== undefined, false) ?? (req.method ?? 'unknown').toLowerCase();
        throw methodNotSupported(
          { group: r.collection.type.group, resource: r.collection.type.resource },
          verb,
          ' under this path (read-only)',
        );
      }
      return resourceRequest(
        state,
        req,
        res,
        url.searchParams,
        view ? mountedCollection(view, r.collection) : r.collection,
        r.name,
        r.subresource,
        user,
      );
    }
  }
}

/** The request's query with a mount's label selector ANDed into its own. */
function withMountSelector(params: URLSearchParams, selector: string | undefined): URLSearchParams {
  if (!selector) return params;
  const own = params.get('labelSelector');
  const out = new URLSearchParams(params);
  out.set('labelSelector', own ? `${own},${selector}` : selector);
  return out;
}

/** The real server's bound on one response's warnings (its warning recorder), so no client's header limit is hit. */
const WARNINGS_MAX_CHARS = 4096;
const WARNING_TRUNCATED_CHARS = 256;

/**
 * `Warning: 299 - "<text>"` headers, as the real server sends for fieldValidation=Warn: each text once; past 4 KiB in
 * all, each cut to 256 characters and added while less than 4 KiB has been written.
 */
function setWarnings(res: ServerResponse, warnings: readonly string[] | undefined): void {
  if (!warnings?.length) return;
  let texts = [...new Set(warnings)];
  const total = (list: readonly string[]) => list.reduce((n, w) => n + w.length, 0);
  if (total(texts) > WARNINGS_MAX_CHARS) {
    texts = texts.map((w) => w.slice(0, WARNING_TRUNCATED_CHARS));
    let used = 0;
    texts = texts.filter((w) => {
      const fits = used < WARNINGS_MAX_CHARS;
      used += w.length;
      return fits;
    });
  }
  res.setHeader(
    'Warning',
    texts.map((w) => `299 - ${JSON.stringify(w)}`),
  );
}

function verbOf(method: string | undefined, named: boolean, watch: boolean): Verb | undefined {
  switch (method ?? '') {
    case 'GET':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return named ? undefined : 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'PATCH':
      return named ? 'patch' : undefined;
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/** Verbs a subresource answers: status reads and writes; Namespace finalize is update only. */
const SUBRESOURCE_VERBS: Readonly<Record<string, readonly Verb[]>> = {
  status: ['get', 'update', 'patch'],
  scale: ['get', 'update', 'patch'],
  finalize: ['update'],
};

function requireVerb(type: ResourceType, verb: Verb | undefined, method: string | undefined, subresource: string | undefined): Verb {
  const gr = { group: type.group, resource: type.resource };
  if (verb === undefined) throw methodNotSupported(gr, (method ?? 'unknown').toLowerCase());
  const allowed = subresource === undefined ? type.verbs : (SUBRESOURCE_VERBS[subresource] ?? []);
  if (!allowed.includes(verb))
    throw methodNotSupported(subresource === undefined ? gr : { group: type.group, resource: `${type.resource}/${subresource}` }, verb);
  return verb;
}

async function resourceRequest(
  state: ApiState,
  req: IncomingMessage,
  res: ServerResponse,
  params: URLSearchParams,
  collection: CollectionTarget,
  name: string | undefined,
  subresource: string | undefined,
  user: UserInfo,
): Promise<void> {
  const { type, version } = collection;
  const gr = { group: type.group, resource: type.resource };
  const watchParam = req.method === 'GET' && queryBool(params, 'watch');
  const verb = requireVerb(type, verbOf(req.method, name !== undefined, watchParam), req.method, subresource);
  const authorizer = state.authorizer;
  if (authorizer) {
    const attributes = {
      user,
      verb,
      group: type.group,
      resource: type.resource,
      subresource,
      namespace: collection.namespace,
      name,
      cluster: collection.cluster,
    };
    if (!authorizer(attributes)) throw forbiddenFor(attributes);
  }
  const allNamespaces = type.namespaced && collection.namespace === undefined;
  if (allNamespaces && verb !== 'list' && verb !== 'watch') throw methodNotSupported(gr, verb);
  if (collection.cluster === undefined && verb !== 'list' && verb !== 'watch')
    throw methodNotSupported(gr, verb, ` in the \`${WILDCARD}\` logical cluster`);
  const cluster = collection.cluster ?? '';
  if (subresource === 'scale' && type.scale && (verb === 'get' || verb === 'update' || verb === 'patch')) {
    return handleScale(state, req, res, params, { ...collection, cluster, name: name!, subresource }, verb);
  }
  const annotation = state.options.logicalClusters ? cluster : undefined;
  const send = (code: number, obj: Parameters<typeof present>[0]): void => writeJson(res, code, present(obj, type, version, annotation));
  // Writes go through the admission webhooks registered in this logical cluster (none: the plain synchronous path).
  const writer = { user, signal: state.requestSignal };

  switch (verb) {
    case 'list':
    case 'watch': {
      let opts = parseListOptions(withMountSelector(params, collection.labelSelector), verb === 'watch');
      if (name !== undefined) opts = withNameSelector(opts, name);
      const rep = negotiate(req.headers.accept, !opts.watch);
      if (opts.watch) return handleWatch(state, res, collection, opts, rep);
      state.counters.lists++;
      return handleList(state, res, collection, opts, rep);
    }
    case 'get': {
      const obj = state.store.get(objectKey({ type, cluster, namespace: collection.namespace, name: name! }));
      if (!obj) throw notFound(gr, name!);
      const rep = negotiate(req.headers.accept, false);
      return writeJson(res, 200, renderObject(rep, present(obj, type, version, annotation), type, version), contentTypeOf(rep, false));
    }
    case 'create': {
      const opts = parseWriteParams(req, params, 'CreateOptions');
      const body = decodeObjectBody(req, await readBody(req));
      const created = await admittedCreate(state, { ...collection, cluster }, writer, objectFromBody(collection, body), opts);
      setWarnings(res, opts.warnings);
      return send(201, created);
    }
    case 'update': {
      const opts = parseWriteParams(req, params, 'UpdateOptions');
      const body = decodeObjectBody(req, await readBody(req));
      const target: ObjectTarget = { ...collection, cluster, name: name!, subresource };
      const obj = objectFromBody(collection, body);
      const result = await admittedUpdate(
        state,
        target,
        writer,
        opts,
        (o) => updateObject(state, target, cloneJson(obj), o),
        'UpdateOptions',
      );
      setWarnings(res, opts.warnings);
      return send(result.created ? 201 : 200, result.object);
    }
    case 'patch': {
      const opts = parseWriteParams(req, params, 'PatchOptions');
      const body = await readBody(req);
      const target: ObjectTarget = { ...collection, cluster, name: name!, subresource };
      const result = await admittedUpdate(
        state,
        target,
        writer,
        opts,
        (o) => patchObject(state, target, mediaType(req), body, o),
        'PatchOptions',
      );
      setWarnings(res, opts.warnings);
      return send(result.created ? 201 : 200, result.object);
    }
    case 'delete': {
      const opts = parseDeleteOptions(params, await readBody(req));
      const target: ObjectTarget = { ...collection, cluster, name: name!, subresource };
      const result = await admittedDelete(state, target, writer, opts, (o) => deleteObject(state, target, o));
      if (!result.removed || type.returnDeletedObject) return send(200, result.object);
      const uid = (result.object.metadata as Record<string, unknown>)['uid'];
      return writeJson(res, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name, group: type.group, kind: type.resource, uid },
      });
    }
    case 'deletecollection': {
      const listOpts = parseListOptions(params, false);
      const opts = parseDeleteOptions(params, await readBody(req));
      const deleted = await admittedDeleteCollection(state, { ...collection, cluster }, writer, listOpts, opts);
      return writeJson(res, 200, {
        kind: type.listKind,
        apiVersion: groupVersion(type.group, version),
        metadata: { resourceVersion: String(state.store.currentRv) },
        items: deleted.map((o) => present(o, type, version, annotation)),
      });
    }
  }
}
