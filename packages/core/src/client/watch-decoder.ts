/**
 * Decodes a watch response body: newline-delimited JSON events, which arrive split across chunks at any byte and
 * several to a chunk. Text decoding is left to the caller (a UTF-8 decoder that keeps multi-byte characters whole).
 *
 * The body comes from a member's API server, which may be broken or hostile: each chunk is scanned once (pieces of an
 * unfinished line are kept apart and joined only when its newline arrives, so a line sent in a million pieces costs
 * linear time, not quadratic), and a line longer than `maxLineLength` fails the stream before it is held in memory.
 */

/** One event of a watch stream. `object` is the raw JSON object (a Status for ERROR events). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

const eventTypes = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** A line of the stream that is not a watch event. */
export class WatchDecodeError extends Error {
  override readonly name: string = 'WatchDecodeError';
}

/** A line of the stream grew past the limit without ending. */
export class WatchLineTooLongError extends WatchDecodeError {
  override readonly name = 'WatchLineTooLongError';
  constructor(readonly limit: number) {
    super(`a watch event grew past ${limit} characters without ending`);
  }
}

/**
 * Splits text chunks into watch events, synchronously: `push` returns the events of the lines a chunk completed, `end`
 * the event of a last line without a newline. Synchronous so a watch costs no promise per event between the socket and
 * the informer. Throws WatchLineTooLongError as soon as an unfinished line holds more than `maxLineLength` characters.
 */
export class WatchLineDecoder {
  private readonly unfinished: string[] = [];
  private unfinishedLength = 0;

  constructor(private readonly maxLineLength = Number.POSITIVE_INFINITY) {}

  push(chunk: string): WatchEvent[] {
    const events: WatchEvent[] = [];
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', start)) {
      if (this.unfinishedLength + newline - start > this.maxLineLength) throw new WatchLineTooLongError(this.maxLineLength);
      let line = chunk.slice(start, newline);
      if (this.unfinished.length > 0) {
        this.unfinished.push(line);
        line = this.unfinished.join('');
        this.unfinished.length = 0;
        this.unfinishedLength = 0;
      }
      start = newline + 1;
      const event = decodeLine(line);
      if (event) events.push(event);
    }
    if (start < chunk.length) {
      this.unfinishedLength += chunk.length - start;
      if (this.unfinishedLength > this.maxLineLength) throw new WatchLineTooLongError(this.maxLineLength);
      this.unfinished.push(start === 0 ? chunk : chunk.slice(start));
    }
    return events;
  }

  /** The stream ended: the event of a last line that had no newline, if any. */
  end(): WatchEvent | undefined {
    const event = decodeLine(this.unfinished.join(''));
    this.unfinished.length = 0;
    this.unfinishedLength = 0;
    return event;
  }
}

/** Yields one event per complete line of `chunks` (see {@link WatchLineDecoder}). */
export async function* decodeWatchEvents(
  chunks: AsyncIterable<string>,
  maxLineLength = Number.POSITIVE_INFINITY,
): AsyncGenerator<WatchEvent> {
  const decoder = new WatchLineDecoder(maxLineLength);
  for await (const chunk of chunks) yield* decoder.push(chunk);
  const event = decoder.end();
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
