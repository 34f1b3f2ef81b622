/** Reading and decoding request bodies: JSON, or YAML/JSON for server-side apply; a size cap like the real server. */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from '../api/status-error.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Beyond this, an oversized upload is cut off instead of drained. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    // Keep reading (and discarding) an oversized body so the client sees the 413 instead of a reset connection.
    if (size > MAX_DRAIN_BYTES) req.destroy();
    else if (size <= limit) chunks.push(buf);
  }
  if (size > limit) throw requestEntityTooLarge(limit);
  return Buffer.concat(chunks);
}

/** The media type without parameters, lowercased: `application/json`. */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function decodeJson(buf: Buffer): unknown {
  const text = buf.toString('utf8');
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

export function decodeYamlOrJson(buf: Buffer): unknown {
  const text = buf.toString('utf8');
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  try {
    return parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}

const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** The object in a create or update body: JSON, or YAML when the Content-Type says so; other media types are 415. */
export function decodeObjectBody(req: IncomingMessage, buf: Buffer): Record<string, unknown> {
  const type = mediaType(req);
  if (type === 'application/yaml') return requireObject(decodeYamlOrJson(buf));
  if (type === '' || type === 'application/json') return requireObject(decodeJson(buf));
  throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
}

export function requireObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest('the body of the request must be a JSON object');
  return v as Record<string, unknown>;
}
