/**
 * Errors of talking to an API server, split by who failed and whether trying again can help:
 * - `ApiError`: the server answered with a non-2xx Status (NotFound, Conflict, Gone, …). `retryable` says whether
 *   the same request may succeed later (429, 5xx, server timeouts); a 409 Conflict is not, the caller must re-read.
 * - `TransportError`: no usable answer (connection refused or reset, TLS failure, timeout, broken stream). Retryable.
 * - `CredentialError`: the kubeconfig's credential could not be obtained (an exec plugin failed or printed garbage).
 * - `TransportConfigError`: the kubeconfig cannot be used at all (no current cluster, bad server URL). Not retryable.
 * - `InvalidRequestError`: the caller built a bad request (unencoded path). Not retryable.
 * - `TransportClosedError`: the Transport was closed; nothing will succeed on it again.
 * - `NoKindMatchError`: the server serves no such kind (a CRD not installed); not an object's NotFound.
 * Messages name the method, path and server answer, never a credential.
 */

/** The `Status` object the API server sends with every error (metav1.Status). */
export interface Status {
  kind?: string;
  apiVersion?: string;
  metadata?: Record<string, unknown>;
  status?: 'Success' | 'Failure' | (string & {});
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** The `details` of a Kubernetes Status: which object the error is about, its causes, and a suggested retry delay. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string; type?: string }>;
  retryAfterSeconds?: number;
}

/** The `reason` values of metav1.StatusReason that callers branch on. Servers may send others. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'ServerTimeout'
  | 'Unknown';

const reasonByCode: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** What the request was, for error messages. The path never carries credentials; the query is left out. */
export interface RequestDescription {
  method: string;
  path: string;
}

/** The API server refused a request. `status` is the server's Status body (synthesized for non-JSON answers). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status code. */
  readonly code: number;
  /** The Status reason, or one derived from the code when the server sent none. */
  readonly reason: StatusReason | (string & {});
  readonly status: Status;
  /** True when the same request may succeed later without changes (429, 5xx, server-side timeouts). */
  readonly retryable: boolean;
  /** How long the server asked the client to wait (Retry-After or `details.retryAfterSeconds`). */
  readonly retryAfterSeconds: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(code: number, status: Status, request?: RequestDescription, retryAfterSeconds?: number) {
    const reason =
      status.reason && status.reason !== '' ? status.reason : (reasonByCode[code] ?? (code >= 500 ? 'InternalError' : 'Unknown'));
    const where = request ? `${request.method} ${request.path}: ` : '';
    super(`${where}${code} ${reason}: ${status.message ?? 'no message'}`);
    this.code = code;
    this.reason = reason;
    this.status = status;
    this.method = request?.method;
    this.path = request?.path;
    this.retryAfterSeconds = retryAfterSeconds ?? status.details?.retryAfterSeconds;
    this.retryable = code === 429 || code >= 500 || reason === 'TooManyRequests' || reason === 'ServerTimeout' || reason === 'Timeout';
  }

  /** Builds the error for a response: the Status body if the server sent one, else a Status made from the text. */
  static fromResponse(code: number, body: string, request?: RequestDescription, retryAfterSeconds?: number): ApiError {
    const parsed = parseStatus(body);
    if (parsed) return new ApiError(code, parsed, request, retryAfterSeconds);
    const text = body.trim().slice(0, 200);
    const message =
      code === 404 && (text === '' || text === '404 page not found')
        ? 'the server could not find the requested resource'
        : text === ''
          ? `the server responded with status ${code}`
          : text;
    const reason = reasonByCode[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
    return new ApiError(code, status, request, retryAfterSeconds);
  }
}

function parseStatus(body: string): Status | undefined {
  if (!body.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null || (value as Status).kind !== 'Status') return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** Why a request got no HTTP answer. */
export type TransportFailure =
  /** The TCP connection could not be made (refused, unreachable host, DNS). */
  | 'connect'
  /** The TLS handshake failed (unknown CA, name mismatch, bad client certificate). */
  | 'tls'
  /** No answer within the request timeout, or a watch went idle. */
  | 'timeout'
  /** The connection broke after the request was sent (reset, closed mid-body). */
  | 'reset'
  /** The server answered something that is not Kubernetes (bad JSON, wrong content). */
  | 'protocol'
  /** The answer, or one watch event, was larger than the Transport allows (maxResponseBytes, maxWatchEventLength). */
  | 'too-large';

/** The request got no usable answer. Always retryable: the next attempt may find the server reachable again. */
export class TransportError extends Error {
  override readonly name: string = 'TransportError';
  readonly kind: TransportFailure;
  readonly retryable: boolean = true;
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(kind: TransportFailure, message: string, request?: RequestDescription, options?: { cause?: unknown }) {
    super(request ? `${request.method} ${request.path}: ${message}` : message, options);
    this.kind = kind;
    this.method = request?.method;
    this.path = request?.path;
  }
}

/**
 * The kubeconfig's credential could not be obtained: an exec plugin failed, timed out or printed no valid
 * ExecCredential, or a token file could not be read. Retryable (plugins fail transiently, files get rotated).
 * The message names the plugin command and never includes its output.
 */
export class CredentialError extends Error {
  override readonly name = 'CredentialError';
  readonly retryable = true;
}

/** The kubeconfig cannot be used to talk to a server (no current cluster, unparsable URL). Not retryable. */
export class TransportConfigError extends Error {
  override readonly name = 'TransportConfigError';
  readonly retryable = false;
}

/** The request is malformed (a path that is not absolute or not URL-encoded); the caller has a bug. Not retryable. */
export class InvalidRequestError extends Error {
  override readonly name = 'InvalidRequestError';
  readonly retryable = false;
}

/** The Transport was closed; create a new one to talk to the server again. */
export class TransportClosedError extends Error {
  override readonly name = 'TransportClosedError';
  readonly retryable = false;
  constructor(server: string) {
    super(`transport to ${server} is closed`);
  }
}

/** An ApiError, matched by class or, for copies from another module instance, by shape. */
function apiError(err: unknown): { code: number; reason: string } | undefined {
  if (err instanceof ApiError) return err;
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { name?: unknown; code?: unknown; reason?: unknown };
  if (e.name !== 'ApiError' || typeof e.code !== 'number') return undefined;
  return { code: e.code, reason: typeof e.reason === 'string' ? e.reason : '' };
}

function hasReason(err: unknown, reason: string, code: number): boolean {
  const e = apiError(err);
  if (!e) return false;
  return e.reason === reason || e.code === code;
}

/**
 * 404 NotFound: the object (or its namespace, or its resource) does not exist.
 */
export function isNotFound(err: unknown): boolean {
  return hasReason(err, 'NotFound', 404);
}

/**
 * 409 AlreadyExists: a create of an object that exists.
 */
export function isAlreadyExists(err: unknown): boolean {
  return apiError(err)?.reason === 'AlreadyExists';
}

/** A 409 that is not AlreadyExists: an optimistic-lock (resourceVersion) or server-side-apply field conflict. */
export function isConflict(err: unknown): boolean {
  const e = apiError(err);
  return e !== undefined && (e.reason === 'Conflict' || (e.code === 409 && e.reason !== 'AlreadyExists'));
}

/** 410: the resourceVersion or continue token is too old (reason Expired or Gone); relist. */
export function isGone(err: unknown): boolean {
  const e = apiError(err);
  return e !== undefined && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}

/**
 * 403 Forbidden: authorization refused the request (RBAC), or the namespace is terminating.
 */
export function isForbidden(err: unknown): boolean {
  return hasReason(err, 'Forbidden', 403);
}

/**
 * 401 Unauthorized: the server refused the credentials.
 */
export function isUnauthorized(err: unknown): boolean {
  return hasReason(err, 'Unauthorized', 401);
}

/**
 * 422 Invalid: validation refused the object; `details.causes` say which fields.
 */
export function isInvalid(err: unknown): boolean {
  return hasReason(err, 'Invalid', 422);
}

/**
 * 429 TooManyRequests: throttled (API Priority and Fairness); retry later.
 */
export function isTooManyRequests(err: unknown): boolean {
  return hasReason(err, 'TooManyRequests', 429);
}

/**
 * 400 BadRequest: the request itself is malformed.
 */
export function isBadRequest(err: unknown): boolean {
  return hasReason(err, 'BadRequest', 400);
}

/** The server did not finish in time: 504 (reason Timeout) or reason ServerTimeout. */
export function isTimeout(err: unknown): boolean {
  const e = apiError(err);
  return e !== undefined && (e.reason === 'Timeout' || e.reason === 'ServerTimeout' || e.code === 504);
}

/** Whether `err` is an HTTP 500 from the API server. */
export function isInternalError(err: unknown): boolean {
  return hasReason(err, 'InternalError', 500);
}

/** Whether `err` is an HTTP 503 from the API server. */
export function isServiceUnavailable(err: unknown): boolean {
  return hasReason(err, 'ServiceUnavailable', 503);
}

/** True for failures where the same request may succeed later: transport failures and retryable API errors. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ApiError || err instanceof TransportError || err instanceof CredentialError || err instanceof NoKindMatchError) {
    return err.retryable;
  }
  return false;
}

/** Refuses a promise where an error belongs, so `ignoreNotFound(client.get(…))` does not compile. */
/** Any error value but a promise: `ignoreNotFound(promise)` (a forgotten `await`) is a type error. */
export type NotAPromise<E> = E extends PromiseLike<unknown> ? never : E;

/**
 * Returns `undefined` for a NotFound error and throws any other error again: the `.catch` of a read that may find
 * nothing, so `await client.get(kind, key).catch(ignoreNotFound)` is the object or `undefined` (never the error).
 * In a `catch` block, `ignoreNotFound(err)` rethrows what is not a NotFound.
 */
export function ignoreNotFound<E>(err: NotAPromise<E>): undefined {
  return rethrowUnless(err, isNotFound);
}

/** Returns `undefined` for an AlreadyExists error and throws any other error again (`create(obj).catch(ignoreAlreadyExists)`). */
export function ignoreAlreadyExists<E>(err: NotAPromise<E>): undefined {
  return rethrowUnless(err, isAlreadyExists);
}

function rethrowUnless(err: unknown, ignored: (err: unknown) => boolean): undefined {
  if (ignored(err)) return undefined;
  throw err;
}

/**
 * The server serves no such kind (its CRD is not installed, or the apiVersion is wrong). Distinct from an object's
 * NotFound, so `ignoreNotFound` does not hide a missing CRD. Retryable: the kind may be installed later.
 */
export class NoKindMatchError extends Error {
  override readonly name = 'NoKindMatchError';
  readonly retryable = true;
  constructor(
    readonly kind: { apiVersion: string; kind: string },
    options?: { cause?: unknown },
  ) {
    super(`no matches for kind "${kind.kind}" in version "${kind.apiVersion}"`, options);
  }
}

/** True when the kind of a request is not served (see NoKindMatchError). */
export function isNoMatchError(err: unknown): boolean {
  return (
    err instanceof NoKindMatchError || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'NoKindMatchError')
  );
}
