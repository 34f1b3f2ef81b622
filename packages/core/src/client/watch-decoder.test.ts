import { describe, expect, it } from 'vitest';
import { decodeWatchEvents, WatchDecodeError, WatchLineTooLongError, type WatchEvent } from './watch-decoder.js';

async function* from(chunks: Iterable<string>): AsyncGenerator<string> {
  for (const c of chunks) yield c;
}

async function decode(chunks: Iterable<string>, max?: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of decodeWatchEvents(from(chunks), max)) out.push(e);
  return out;
}

const line = (name: string) => `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;

describe('decodeWatchEvents', () => {
  it('decodes events split at every byte, several to a chunk, and a last line without a newline', async () => {
    const text = line('a') + line('b') + '\n' + line('c').trimEnd();
    const names = (events: WatchEvent[]) => events.map((e) => (e.object.metadata as { name: string }).name);
    expect(names(await decode([text]))).toEqual(['a', 'b', 'c']);
    expect(names(await decode([...text]))).toEqual(['a', 'b', 'c']);
    for (let cut = 1; cut < text.length; cut++) {
      expect(names(await decode([text.slice(0, cut), text.slice(cut)]))).toEqual(['a', 'b', 'c']);
    }
  });

  it('refuses lines that are not watch events, without quoting them', async () => {
    await expect(decode(['{"type":"ADDED","object":{"data":"s3cret"}'])).rejects.toThrow(WatchDecodeError);
    await expect(decode(['not json s3cret\n'])).rejects.not.toThrow(/s3cret/);
    await expect(decode(['{"type":"NOPE","object":{}}\n'])).rejects.toThrow(/unknown type/);
    await expect(decode(['{"type":"ADDED"}\n'])).rejects.toThrow(/no object/);
  });

  it('fails as soon as an unfinished line passes the limit, whether it came in one chunk or many', async () => {
    const event = line('x');
    expect(await decode([event], event.length - 1)).toHaveLength(1);
    await expect(decode([event], event.length - 2)).rejects.toThrow(WatchLineTooLongError);
    await expect(decode([...event], event.length - 2)).rejects.toThrow(WatchLineTooLongError);
    // An endless line ends the stream once past the limit: the generator never reads the rest.
    let read = 0;
    async function* endless(): AsyncGenerator<string> {
      for (;;) {
        read++;
        yield 'x'.repeat(1000);
      }
    }
    const events = decodeWatchEvents(endless(), 10_000);
    await expect(events.next()).rejects.toThrow(WatchLineTooLongError);
    expect(read).toBe(11);
  });

  it('decodes a line sent one character at a time in linear time (a million pieces)', async () => {
    const big = JSON.stringify({ type: 'ADDED', object: { data: 'y'.repeat(1_000_000) } });
    const events = await decode([...big]);
    expect(events).toHaveLength(1);
    expect((events[0]!.object.data as string).length).toBe(1_000_000);
  });
});
