/**
 * The error a cache read gives for a missing object: the same ApiError NotFound the API server answers with, so
 * callers handle one error whether a read came from the cache or from the server.
 */
import { ApiError } from '../client/errors.js';
import type { ResourceMapping } from '../client/types.js';

export function objectNotFound(mapping: ResourceMapping, name: string): ApiError {
  const qualified = mapping.group ? `${mapping.resource}.${mapping.group}` : mapping.resource;
  return new ApiError(404, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${qualified} "${name}" not found`,
    reason: 'NotFound',
    details: { name, group: mapping.group, kind: mapping.resource },
    code: 404,
  });
}
