// Newline-delimited JSON watch events from a chunked body.
import type { WatchEvent } from './types.ts';

export async function* readWatchEvents<T>(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) yield parseLine<T>(line);
      nl = buffer.indexOf('\n');
    }
  }
  const rest = (buffer + decoder.decode()).trim();
  if (rest) yield parseLine<T>(rest);
}

function parseLine<T>(line: string): WatchEvent<T> {
  // A line that does not parse is a broken stream, not an event to skip: let the caller re-watch.
  const event = JSON.parse(line) as WatchEvent<T>;
  if (!event || typeof event !== 'object' || typeof event.type !== 'string') {
    throw new Error(`malformed watch event: ${line.slice(0, 200)}`);
  }
  return event;
}
