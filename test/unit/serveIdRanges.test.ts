import { describe, expect, it } from 'vitest';
import { ServeIdRanges, stringLiteral } from '../../src/tracking/billedOnce.js';
import { newServeId } from '../../src/serving/serveId.js';

/** Whether an id falls in one of the ranges, compared as ClickHouse compares Strings (bytes). */
function covered(ranges: Array<[string, string]>, id: string): boolean {
  return ranges.some(([low, high]) => Buffer.compare(Buffer.from(low), Buffer.from(id)) <= 0 && Buffer.compare(Buffer.from(id), Buffer.from(high)) <= 0);
}

describe('the serve id ranges a segment\'s insert checks', () => {
  it('keeps the time-first ids of a few seconds in a few ranges that cover each of them', () => {
    const serves = new ServeIdRanges();
    const start = Date.parse('2026-11-23T18:00:00Z');
    const ids = Array.from({ length: 5_000 }, (_, index) => newServeId(start + index * 2));
    for (const id of ids) serves.add(id);
    const ranges = serves.ranges();
    expect(ranges.length).toBeLessThanOrEqual(4);
    expect(ids.every((id) => covered(ranges, id))).toBe(true);
  });

  it('merges ids of many past seconds (clicks on old serves, ids that are not time-first) into at most 200 ranges that still cover each', () => {
    const serves = new ServeIdRanges();
    const ids = Array.from({ length: 3_000 }, (_, index) => (index % 2 === 0 ? crypto.randomUUID() : newServeId(Date.now() - index * 600_000)));
    for (const id of ids) serves.add(id);
    const ranges = serves.ranges();
    expect(ranges.length).toBeLessThanOrEqual(200);
    expect(ids.every((id) => covered(ranges, id))).toBe(true);
  });

  it('escapes quotes and backslashes in the literals it writes', () => {
    expect(stringLiteral(`a'b\\c`)).toBe(`'a\\'b\\\\c'`);
  });
});
