/** Writing responses: JSON with the real server's headers, Status errors, and the plain-text 404 page. */
import type { ServerResponse } from 'node:http';
import type { StatusError } from '../api/status-error.js';

export const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' } as const;

export function writeJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(code, { ...JSON_HEADERS, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function writeStatusError(res: ServerResponse, err: StatusError): void {
  writeJson(res, err.code, err.toStatus());
}

export function writeText(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** What kube-apiserver's not-found handler answers for paths it does not serve. */
export function writeNotFoundPage(res: ServerResponse): void {
  writeText(res, 404, '404 page not found\n');
}
