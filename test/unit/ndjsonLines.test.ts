import { describe, expect, it } from 'vitest';
import { ndjsonLines, NOT_UTF8_LINE, type NdjsonLine } from '../../src/tracking/ndjsonLines.js';

async function collect(chunks: Buffer[], limit = 1_000_000): Promise<NdjsonLine[]> {
  const lines: NdjsonLine[] = [];
  for await (const line of ndjsonLines(chunks, limit)) lines.push(line);
  return lines;
}

describe('ndjsonLines', () => {
  it('joins lines and multi-byte characters split across chunks', async () => {
    const text = Buffer.from('{"a":"é"}\n{"b":"日本"}\nlast');
    // Cut inside "é" (2 bytes) and inside "日" (3 bytes).
    const chunks = [text.subarray(0, 8), text.subarray(8, 15), text.subarray(15, 17), text.subarray(17)];
    expect(await collect(chunks)).toEqual(['{"a":"é"}', '{"b":"日本"}', 'last']);
  });

  it('yields the lines wholly within the limit, then refuses the body with 413', async () => {
    const lines: NdjsonLine[] = [];
    let refused: unknown;
    try {
      for await (const line of ndjsonLines([Buffer.from('one\ntwo\nthree\n')], 9)) lines.push(line);
    } catch (error) {
      refused = error;
    }
    expect(lines).toEqual(['one', 'two']);
    expect(refused).toMatchObject({ code: 'payload_too_large' });
  });

  it('marks a line whose bytes are not UTF-8, and reads the lines around it', async () => {
    const text = Buffer.concat([Buffer.from('{"a":1}\n{"ua":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"b":"é"}')]);
    // Cut inside the bad line and inside "é": neither cut makes or hides an error.
    const chunks = [text.subarray(0, 12), text.subarray(12, 30), text.subarray(30)];
    expect(await collect(chunks)).toEqual(['{"a":1}', NOT_UTF8_LINE, '{"b":"é"}']);
  });
});
