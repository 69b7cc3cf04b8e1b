import { describe, expect, it } from 'vitest';
import { ndjsonLines } from '../../src/tracking/ndjsonLines.js';

async function collect(chunks: Buffer[], limit = 1_000_000): Promise<string[]> {
  const lines: string[] = [];
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
    const lines: string[] = [];
    let refused: unknown;
    try {
      for await (const line of ndjsonLines([Buffer.from('one\ntwo\nthree\n')], 9)) lines.push(line);
    } catch (error) {
      refused = error;
    }
    expect(lines).toEqual(['one', 'two']);
    expect(refused).toMatchObject({ code: 'payload_too_large' });
  });
});
