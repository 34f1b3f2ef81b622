/**
 * How a Transport names what went wrong: a network error becomes a TransportError kind (connect, tls, timeout,
 * reset) from its code or its cause's, an HTTP error answer becomes an ApiError (with the server's Retry-After), and a
 * throttled answer says how long the server asked to wait before the same request is sent again.
 */
import type { Dispatcher } from 'undici';
import {
  ApiError,
  CredentialError,
  InvalidRequestError,
  TransportClosedError,
  TransportError,
  type RequestDescription,
  type TransportFailure,
} from './errors.js';

const tlsCodes = new Set([
  'EPROTO',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);
const connectCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);
const timeoutCodes = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** The failure kind of a network error, from its code or its cause's code. */
export function classify(err: unknown): { kind: TransportFailure; message: string } {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const message = (e as { message?: unknown }).message;
    const text = `${typeof message === 'string' && message !== '' ? message : code}`;
    if (timeoutCodes.has(code)) return { kind: code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : 'timeout', message: text };
    if (connectCodes.has(code)) return { kind: 'connect', message: `cannot connect: ${text}` };
    // OpenSSL refusing the client certificate, key or CA itself (bad PEM): a TLS problem no connection attempt fixes.
    if (code.startsWith('ERR_OSSL')) return { kind: 'tls', message: `TLS credentials do not parse: ${text}` };
    if (tlsCodes.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) {
      return { kind: 'tls', message: `TLS handshake failed: ${text}` };
    }
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED' || code === 'UND_ERR_ABORTED') {
      return { kind: 'reset', message: `connection broke: ${text}` };
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'reset', message };
}

export function isOwnError(err: unknown): boolean {
  return (
    err instanceof ApiError ||
    err instanceof TransportError ||
    err instanceof CredentialError ||
    err instanceof TransportClosedError ||
    err instanceof InvalidRequestError
  );
}

export function apiError(
  statusCode: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  request: RequestDescription,
): ApiError {
  if (statusCode >= 300 && statusCode < 400) {
    // Not followed: a member's server must not send our requests, and its credentials, elsewhere. The Location is
    // left out of the message: it comes from an untrusted server and may carry anything.
    const message = `the server answered with a redirect (${statusCode}), which is not followed: requests and credentials stay with the configured server`;
    return new ApiError(statusCode, { kind: 'Status', status: 'Failure', code: statusCode, reason: 'Redirect', message }, request);
  }
  const raw = headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const seconds = value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  return ApiError.fromResponse(statusCode, body, request, seconds);
}

/**
 * Seconds the server asked us to wait before sending the same request again: a 429, or a 5xx with Retry-After,
 * means the request was not processed (client-go retries these too). Undefined when it did not ask.
 */
export function serverAskedToRetry(response: Dispatcher.ResponseData): number | undefined {
  const code = response.statusCode;
  if (code !== 429 && code < 500) return undefined;
  const raw = response.headers['retry-after'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}
