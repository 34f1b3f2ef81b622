/**
 * POST to an action subresource (see ActionSubresource): authorize `create` on the subresource, find the object it
 * belongs to, decode the body and answer with what the action computes. Nothing is stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, internalError, methodNotSupported, notFound } from '../../api/status-error.js';
import type { UserInfo } from '../../auth/authenticator.js';
import { forbiddenFor } from '../../auth/authorizer.js';
import type { ApiState } from '../api-state.js';
import { decodeObjectBody, readBody } from '../body.js';
import type { CollectionTarget } from '../object-target.js';
import { objectKey, present } from '../object-target.js';
import type { ActionResult, ActionSubresource } from '../options.js';
import { writeJson } from '../respond.js';

export async function handleAction(
  state: ApiState,
  req: IncomingMessage,
  res: ServerResponse,
  collection: CollectionTarget,
  name: string,
  action: ActionSubresource,
  user: UserInfo,
): Promise<void> {
  const { type, version } = collection;
  const gr = { group: type.group, resource: type.resource };
  if (req.method !== 'POST') {
    throw methodNotSupported(
      { group: type.group, resource: `${type.resource}/${action.subresource}` },
      (req.method ?? 'unknown').toLowerCase(),
    );
  }
  const cluster = collection.cluster ?? '';
  const attributes = {
    user,
    verb: 'create' as const,
    group: type.group,
    resource: type.resource,
    subresource: action.subresource,
    namespace: collection.namespace,
    name,
    cluster: collection.cluster,
  };
  if (state.authorizer && !state.authorizer(attributes)) throw forbiddenFor(attributes);
  const stored = state.store.get(objectKey({ type, cluster, namespace: collection.namespace, name }));
  if (!stored) throw notFound(gr, name);
  const body = decodeObjectBody(req, await readBody(req));
  let result: ActionResult;
  try {
    result = await action.create({ object: present(stored, type, version), body, user, cluster });
  } catch (err) {
    throw internalError(err instanceof Error ? err.message : String(err));
  }
  if ('failure' in result) {
    const { code, reason, message } = result.failure;
    throw new StatusError(code, reason, message, { name, group: type.group, kind: type.resource });
  }
  writeJson(res, 201, result.object);
}
