import { describe, expect, it } from 'vitest';
import { WrittenEventDays, widenDaySpan, type DaySpan } from '../../src/store/writtenEventDays.js';
import { utcDay } from '../../src/utcDays.js';

const day = (date: string) => utcDay(Date.parse(`${date}T00:00:00Z`));
const span = (first: string, last: string): DaySpan => ({ first: day(first), last: day(last) });

/** Ends a write of `params` the way the client wrapper does. */
function write(days: WrittenEventDays, params: object, declared?: DaySpan | null): void {
  days.ended(declared === undefined ? params : days.declare(params, declared));
}

describe('WrittenEventDays', () => {
  it('keeps a read of a window through writes of other days, not through one of its days', () => {
    const days = new WrittenEventDays();
    const read = days.now();
    write(days, {}, span('2026-11-25', '2026-11-25'));
    expect(days.untouchedSince(read, '2026-08-25', '2026-11-24')).toBe(true);
    expect(days.untouchedSince(read, '2026-08-25', '2026-11-25')).toBe(false);
    write(days, {}, span('2026-09-01', '2026-09-02'));
    expect(days.untouchedSince(read, '2026-08-25', '2026-11-24')).toBe(false);
    expect(days.untouchedSince(read, '2026-09-03', '2026-11-24')).toBe(true);
    // A read after those writes found them.
    expect(days.untouchedSince(days.now(), '2026-08-25', '2026-11-25')).toBe(true);
  });

  it('counts a write without a declaration as changing every day, and one declared with none as changing nothing', () => {
    const days = new WrittenEventDays();
    const read = days.now();
    write(days, {}, null);
    expect(days.untouchedSince(read, '2000-01-01', '2100-01-01')).toBe(true);
    write(days, {});
    expect(days.untouchedSince(read, '2026-01-01', '2026-01-01')).toBe(false);
  });

  it('widens a span by each event time', () => {
    const widened = [Date.parse('2026-11-24T23:59:59.999Z'), Date.parse('2026-11-20T00:00:00Z'), Date.parse('2026-11-25T00:00:00Z')].reduce<DaySpan | undefined>(
      (so, ms) => widenDaySpan(so, ms),
      undefined,
    );
    expect(widened).toEqual(span('2026-11-20', '2026-11-25'));
  });
});
