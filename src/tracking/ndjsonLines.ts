import { StringDecoder } from 'node:string_decoder';
import { ApiError } from '../http/errors.js';

/**
 * The lines of a streamed NDJSON body, as they arrive: only the current chunk and the unfinished
 * line are held, never the whole body. Past `limitBytes` the body is refused (413) where it stands.
 */
export async function* ndjsonLines(body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, limitBytes: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  let unfinished = '';
  for await (const chunk of body) {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // The lines wholly within the limit are read whatever the chunking; the body ends there.
    const over = bytes + data.length > limitBytes;
    const lines = (unfinished + decoder.write(over ? data.subarray(0, limitBytes - bytes) : data)).split('\n');
    bytes += data.length;
    unfinished = lines.pop()!;
    yield* lines;
    if (over) throw new ApiError('payload_too_large', `request body is over ${limitBytes} bytes`);
  }
  const last = unfinished + decoder.end();
  if (last !== '') yield last;
}
