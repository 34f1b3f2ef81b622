/** Reading an answer's body from a server that may be broken or hostile: whole, with a size limit. */
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
