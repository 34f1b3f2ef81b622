/** Reading a bounded request body and writing small JSON and text answers, for the webhook server. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadReviewError } from '../errors.js';

/** The body, or BadReviewError(413) once it passes `limit` bytes (the rest is not read). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.reject(new BadReviewError(`the request body (${declared} bytes) is larger than the limit of ${limit} bytes`, 413));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Discard the rest (the client is still sending) so it reads the 413 instead of a reset connection.
        req.resume();
        reject(new BadReviewError(`the request body is larger than the limit of ${limit} bytes`, 413));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new BadReviewError(`reading the request body failed: ${err.message}`));
    };
    const onAborted = (): void => onError(new Error('the client went away'));
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

export function writeJson(res: ServerResponse, code: number, body: unknown, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(text);
}

/** An error answer before any review could be read: a JSON body saying what is wrong. */
export function writeError(res: ServerResponse, code: number, message: string, close = false, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  writeJson(res, code, { error: message, code }, close);
}

export function writeText(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
