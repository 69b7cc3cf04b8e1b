import { describe, expect, it } from 'vitest';
import { dayBlocks } from '../../src/reporting/dayBlocks.js';
import { addDays, daysBetween, eachDate } from '../../src/utcDays.js';

const dayNumber = (date: string) => daysBetween('1970-01-01', date);

describe('dayBlocks', () => {
  it('covers every day of a window exactly once with aligned blocks of 1 to 64 days', () => {
    for (const [from, length] of [['2026-08-24', 92], ['2026-01-01', 1], ['2025-12-30', 40], ['2024-02-27', 64], ['2026-11-23', 7]] as const) {
      const to = addDays(from, length - 1);
      const blocks = dayBlocks(from, to);
      const covered = blocks.flatMap((block) => eachDate(block.start, addDays(block.start, block.spanDays - 1)));
      expect(covered).toEqual(eachDate(from, to));
      for (const block of blocks) {
        expect([1, 2, 4, 8, 16, 32, 64]).toContain(block.spanDays);
        expect(dayNumber(block.start) % block.spanDays).toBe(0);
      }
    }
  });

  it('takes at most 12 blocks for any window of up to 93 days', () => {
    let most = 0;
    for (let start = 0; start < 128; start++) {
      for (let length = 1; length <= 93; length++) {
        const from = addDays('2026-01-01', start);
        most = Math.max(most, dayBlocks(from, addDays(from, length - 1)).length);
      }
    }
    expect(most).toBeLessThanOrEqual(12);
  });

  it('is one block for a single day and nothing for a window that ends before it starts', () => {
    expect(dayBlocks('2026-03-05', '2026-03-05')).toEqual([{ spanDays: 1, start: '2026-03-05' }]);
    expect(dayBlocks('2026-03-05', '2026-03-04')).toEqual([]);
  });
});
