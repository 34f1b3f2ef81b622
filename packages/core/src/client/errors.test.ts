/** ApiError construction from server answers, the reason predicates, retryability and ignoreNotFound. */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  TransportError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isRetryable,
  isTooManyRequests,
  isUnauthorized,
} from './errors.js';

const status = (code: number, reason: string, message = 'm') =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

describe('ApiError', () => {
  it.each([
    [404, 'NotFound', isNotFound],
    [409, 'AlreadyExists', isAlreadyExists],
    [409, 'Conflict', isConflict],
    [410, 'Expired', isGone],
    [410, 'Gone', isGone],
    [403, 'Forbidden', isForbidden],
    [401, 'Unauthorized', isUnauthorized],
    [422, 'Invalid', isInvalid],
    [429, 'TooManyRequests', isTooManyRequests],
  ])('%d %s matches its predicate and no other', (code, reason, predicate) => {
    const err = ApiError.fromResponse(code, status(code, reason));
    expect(err.reason).toBe(reason);
    const all = [isNotFound, isAlreadyExists, isConflict, isGone, isForbidden, isUnauthorized, isInvalid, isTooManyRequests];
    expect(all.filter((p) => p(err))).toEqual([predicate]);
  });

  it('derives the reason from the code when the body is not a Status', () => {
    expect(ApiError.fromResponse(422, 'oops').reason).toBe('Invalid');
    expect(ApiError.fromResponse(502, '<html>bad gateway</html>')).toMatchObject({ reason: 'InternalError', retryable: true });
    expect(ApiError.fromResponse(418, '')).toMatchObject({ reason: 'Unknown', retryable: false });
    expect(ApiError.fromResponse(404, '404 page not found').status.message).toBe('the server could not find the requested resource');
  });

  it('is retryable for 429, 5xx and server timeouts, not for conflicts or client errors', () => {
    expect(isRetryable(ApiError.fromResponse(429, status(429, 'TooManyRequests')))).toBe(true);
    expect(isRetryable(ApiError.fromResponse(500, status(500, 'InternalError')))).toBe(true);
    expect(isRetryable(ApiError.fromResponse(504, status(504, 'Timeout')))).toBe(true);
    expect(isRetryable(ApiError.fromResponse(409, status(409, 'Conflict')))).toBe(false);
    expect(isRetryable(ApiError.fromResponse(422, status(422, 'Invalid')))).toBe(false);
    expect(isRetryable(new TransportError('reset', 'connection broke'))).toBe(true);
    expect(isRetryable(new Error('x'))).toBe(false);
  });

  it('takes retry-after from the header or the Status details', () => {
    expect(ApiError.fromResponse(429, status(429, 'TooManyRequests'), undefined, 7).retryAfterSeconds).toBe(7);
    const body = JSON.stringify({ kind: 'Status', code: 500, reason: 'ServerTimeout', details: { retryAfterSeconds: 2 } });
    expect(ApiError.fromResponse(500, body).retryAfterSeconds).toBe(2);
  });

  it('names the request in the message', () => {
    const err = ApiError.fromResponse(404, status(404, 'NotFound', 'configmaps "x" not found'), { method: 'GET', path: '/api/v1/x' });
    expect(err.message).toBe('GET /api/v1/x: 404 NotFound: configmaps "x" not found');
  });

  it('predicates accept ApiError-shaped errors from another copy of this module, and reject everything else', () => {
    const foreign = Object.assign(new Error('x'), { name: 'ApiError', code: 404, reason: 'NotFound' });
    expect(isNotFound(foreign)).toBe(true);
    expect(isNotFound(Object.assign(new Error('x'), { code: 404 }))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
    expect(isNotFound('NotFound')).toBe(false);
  });
});

describe('ignoreNotFound', () => {
  it('turns NotFound into undefined and passes values and other errors through', async () => {
    expect(await ignoreNotFound(Promise.reject(ApiError.fromResponse(404, status(404, 'NotFound'))))).toBeUndefined();
    expect(await ignoreNotFound(Promise.resolve(3))).toBe(3);
    await expect(ignoreNotFound(Promise.reject(ApiError.fromResponse(409, status(409, 'Conflict'))))).rejects.toSatisfy(isConflict);
  });
});
