import { isUtf8 } from 'node:buffer';
import { ApiError } from '../http/errors.js';

/** A line whose bytes are not UTF-8: refused as it stands, never read with U+FFFD in place of its bytes. */
export const NOT_UTF8_LINE = Symbol('not UTF-8');
export type NdjsonLine = string | typeof NOT_UTF8_LINE;

/**
 * The lines of a streamed NDJSON body, as they arrive: only the current chunk and the unfinished
 * line are held, never the whole body. Past `limitBytes` the body is refused (413) where it stands.
 * Lines are cut on bytes and decoded one by one, so one line that is not UTF-8 is that line's
 * error, not the body's.
 */
export async function* ndjsonLines(body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, limitBytes: number): AsyncGenerator<NdjsonLine> {
  let bytes = 0;
  let unfinished: Buffer[] = [];
  for await (const chunk of body) {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // The lines wholly within the limit are read whatever the chunking; the body ends there.
    const over = bytes + data.length > limitBytes;
    const read = over ? data.subarray(0, limitBytes - bytes) : data;
    bytes += data.length;
    let start = 0;
    for (let newline = read.indexOf(0x0a); newline !== -1; newline = read.indexOf(0x0a, start)) {
      unfinished.push(read.subarray(start, newline));
      yield decodeLine(unfinished);
      unfinished = [];
      start = newline + 1;
    }
    if (start < read.length) unfinished.push(read.subarray(start));
    if (over) throw new ApiError('payload_too_large', `request body is over ${limitBytes} bytes`);
  }
  if (unfinished.length > 0) yield decodeLine(unfinished);
}

function decodeLine(parts: Buffer[]): NdjsonLine {
  const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return isUtf8(line) ? line.toString('utf8') : NOT_UTF8_LINE;
}
