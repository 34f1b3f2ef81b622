/** List continuation tokens in apiserver's format: base64url JSON `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}`. */
import { badRequest } from './status-error.js';

export interface ContinueToken {
  rv: number;
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start })).toString('base64url');
}

export function decodeContinue(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badRequest(`invalid continue token: illegal base64 data or JSON`);
  }
  const t = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (typeof t !== 'object' || t === null || t.v !== 'meta.k8s.io/v1')
    throw badRequest('invalid continue token: continue key is not supported');
  if (typeof t.rv !== 'number' || !Number.isInteger(t.rv) || typeof t.start !== 'string')
    throw badRequest('invalid continue token: malformed');
  return { rv: t.rv, start: t.start };
}
