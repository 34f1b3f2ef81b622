/**
 * Decodes a watch response body: newline-delimited JSON events, which arrive split across chunks at any byte and
 * several to a chunk. Text decoding is left to the caller (a UTF-8 decoder that keeps multi-byte characters whole).
 */

/** One event of a watch stream. `object` is the raw JSON object (a Status for ERROR events). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

const eventTypes = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** A line of the stream that is not a watch event. */
export class WatchDecodeError extends Error {
  override readonly name = 'WatchDecodeError';
}

/** Yields one event per complete line of `chunks`; a last line without a newline is decoded when the stream ends. */
export async function* decodeWatchEvents(chunks: AsyncIterable<string>): AsyncGenerator<WatchEvent> {
  let pending = '';
  for await (const chunk of chunks) {
    pending += chunk;
    let start = 0;
    let newline = pending.indexOf('\n', start);
    while (newline !== -1) {
      const event = decodeLine(pending.slice(start, newline));
      if (event) yield event;
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  const event = decodeLine(pending);
  if (event) yield event;
}

function decodeLine(line: string): WatchEvent | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The line itself is not quoted: it may be part of a Secret.
    throw new WatchDecodeError(`watch stream line of ${text.length} characters is not JSON`);
  }
  if (typeof value !== 'object' || value === null) throw new WatchDecodeError('watch stream line is not a JSON object');
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !eventTypes.has(type)) {
    throw new WatchDecodeError(`watch event has unknown type ${JSON.stringify(type)}`);
  }
  if (typeof object !== 'object' || object === null) throw new WatchDecodeError(`${type} watch event has no object`);
  return { type: type as WatchEvent['type'], object: object as Record<string, unknown> };
}
