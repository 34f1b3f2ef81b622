/** Reading an answer's body from a server that may be broken or hostile: whole, with a size limit. */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { TransportError, type RequestDescription } from './errors.js';

/**
 * The body as text, failing with a `too-large` TransportError (and dropping the connection) as soon as it passes
 * `limit` bytes, so an endless answer costs at most `limit` of memory.
 */
export async function readLimited(body: Dispatcher.ResponseData['body'], limit: number, request: RequestDescription): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new TransportError('too-large', `the answer grew past ${limit} bytes (TransportOptions.maxResponseBytes)`, request);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * The next chunk of a body: returned at once when one is buffered, a promise of it only when the stream must be
 * waited for (Node's async iterator makes a promise per chunk), null at its end. Fails with the stream's error, and
 * with a `premature close` error when it was destroyed before its end without one, as that iterator does.
 */
export function nextChunk(body: Readable): Buffer | null | Promise<Buffer | null> {
  const chunk = body.destroyed ? null : (body.read() as Buffer | null);
  if (chunk !== null) return chunk;
  if (body.errored) throw body.errored;
  if (body.readableEnded) return null;
  if (body.destroyed) throw prematureClose();
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      body.off('readable', settle);
      body.off('end', settle);
      body.off('close', settle);
      body.off('error', settle);
      try {
        resolve(nextChunk(body));
      } catch (err) {
        reject(err);
      }
    };
    body.on('readable', settle);
    body.on('end', settle);
    body.on('close', settle);
    body.on('error', settle);
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
