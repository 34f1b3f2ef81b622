/** ApiError construction from server answers, the reason predicates, retryability, and ignoreNotFound's runtime and types. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  NoKindMatchError,
  TransportError,
  ignoreAlreadyExists,
  ignoreNotFound,
  isBadRequest,
  isInternalError,
  isNoMatchError,
  isServiceUnavailable,
  isTimeout,
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

describe('ignoreNotFound and ignoreAlreadyExists', () => {
  const notFound = ApiError.fromResponse(404, status(404, 'NotFound'));
  const exists = ApiError.fromResponse(409, status(409, 'AlreadyExists'));
  const conflict = ApiError.fromResponse(409, status(409, 'Conflict'));

  it('turn their error into undefined and throw every other error again', async () => {
    expect(ignoreNotFound(notFound)).toBeUndefined();
    expect(() => ignoreNotFound(conflict)).toThrow(conflict);
    expect(() => ignoreNotFound(new NoKindMatchError({ apiVersion: 'x/v1', kind: 'X' }))).toThrow(NoKindMatchError);
    expect(ignoreAlreadyExists(exists)).toBeUndefined();
    expect(() => ignoreAlreadyExists(notFound)).toThrow(notFound);
    expect(await Promise.reject(notFound).catch(ignoreNotFound)).toBeUndefined();
    await expect(Promise.reject(conflict).catch(ignoreNotFound)).rejects.toBe(conflict);
  });

  it('are typed so a read that found nothing is undefined, never the error, and a promise is not an error', () => {
    const read = (): Promise<{ metadata: { name: string } }> => Promise.reject(notFound);
    const found = read().catch(ignoreNotFound);
    expectTypeOf(found).toEqualTypeOf<Promise<{ metadata: { name: string } } | undefined>>();
    expectTypeOf(ignoreNotFound).returns.toEqualTypeOf<undefined>();
    expectTypeOf(ignoreAlreadyExists).returns.toEqualTypeOf<undefined>();
    // The old shape, handing over the promise, does not compile (and would throw it right back at runtime).
    // @ts-expect-error a promise is not an error
    expect(() => ignoreNotFound(Promise.resolve(3))).toThrow();
    // @ts-expect-error a promise is not an error
    expect(() => ignoreAlreadyExists(read().catch(() => undefined))).toThrow();
    // Using the result as the object needs the undefined handled first.
    const useName = async () => {
      const obj = await read().catch(ignoreNotFound);
      // @ts-expect-error obj may be undefined
      return obj.metadata.name;
    };
    expectTypeOf(useName).returns.toEqualTypeOf<Promise<string>>();
  });
});

describe('more predicates', () => {
  it('isBadRequest, isTimeout, isInternalError, isServiceUnavailable match their codes and reasons', () => {
    expect(isBadRequest(ApiError.fromResponse(400, status(400, 'BadRequest')))).toBe(true);
    expect(isTimeout(ApiError.fromResponse(504, status(504, 'Timeout')))).toBe(true);
    expect(isTimeout(ApiError.fromResponse(500, status(500, 'ServerTimeout')))).toBe(true);
    expect(isInternalError(ApiError.fromResponse(500, status(500, 'InternalError')))).toBe(true);
    expect(isServiceUnavailable(ApiError.fromResponse(503, status(503, 'ServiceUnavailable')))).toBe(true);
    expect(isTimeout(notFoundError())).toBe(false);
    expect(isBadRequest(notFoundError())).toBe(false);
  });

  it('NoKindMatchError is retryable and not a NotFound', () => {
    const err = new NoKindMatchError({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(err.message).toBe('no matches for kind "Widget" in version "example.com/v1"');
    expect(isNoMatchError(err)).toBe(true);
    expect(isNotFound(err)).toBe(false);
    expect(isRetryable(err)).toBe(true);
  });
});

function notFoundError(): ApiError {
  return ApiError.fromResponse(404, status(404, 'NotFound'));
}
