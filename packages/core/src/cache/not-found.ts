/**
 * The error a cache read gives for a missing object: the same NotFound the API server answers with, so callers
 * handle one error whether a read came from the cache or the server.
 * TODO(H-client): build the client's ApiError (client/errors.ts) here once it lands; until then this is an Error
 * with the same `code`, `reason` and Status `body` fields.
 */
import type { ResourceMapping } from '../client/types.js';

export function objectNotFound(mapping: ResourceMapping, name: string): Error {
  const qualified = mapping.group ? `${mapping.resource}.${mapping.group}` : mapping.resource;
  const message = `${qualified} "${name}" not found`;
  const body = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'NotFound',
    details: { name, group: mapping.group, kind: mapping.resource }, code: 404,
  };
  return Object.assign(new Error(message), { name: 'ApiError', code: 404, reason: 'NotFound', body });
}
