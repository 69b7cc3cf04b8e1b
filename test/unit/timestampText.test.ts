import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from '../../src/store/timestampText.js';

describe('parseTimestamptz', () => {
  it('reads the ISO text Postgres writes, whatever the year, offset or fraction', () => {
    expect(parseTimestamptz('0001-06-15 00:00:00+00')).toEqual(new Date('0001-06-15T00:00:00Z'));
    expect(parseTimestamptz('0099-06-14 18:30:00+00')).toEqual(new Date('0099-06-14T18:30:00Z'));
    expect(parseTimestamptz('2026-01-02 03:04:05.123456+00')).toEqual(new Date('2026-01-02T03:04:05.123Z'));
    expect(parseTimestamptz('2026-01-02 03:04:05+00')).toEqual(new Date('2026-01-02T03:04:05.000Z'));
    expect(parseTimestamptz('1999-12-31 23:59:59.9+00')).toEqual(new Date('1999-12-31T23:59:59.900Z'));
    expect(parseTimestamptz('1999-12-31 23:59:59.95+00')).toEqual(new Date('1999-12-31T23:59:59.950Z'));
    expect(parseTimestamptz('1000-01-01 12:00:00.0019+00')).toEqual(new Date('1000-01-01T12:00:00.001Z'));
    // 1 BC (the year 0) was a leap year; 1900, where Date.UTC would put it, was not.
    expect(parseTimestamptz('0001-02-29 00:00:00+00 BC')).toEqual(new Date(Date.parse('0000-02-29T00:00:00Z')));
    expect(parseTimestamptz('0999-12-31 23:59:59.999999+00')).toEqual(new Date('0999-12-31T23:59:59.999Z'));
    expect(parseTimestamptz('2026-01-02 03:04:05.1-08')).toEqual(new Date('2026-01-02T11:04:05.100Z'));
    // A zone's local mean time has seconds in its offset.
    expect(parseTimestamptz('1850-01-01 00:00:00+05:53:28')).toEqual(new Date('1849-12-31T18:06:32Z'));
    expect(parseTimestamptz('0044-03-15 12:00:00+00 BC')).toEqual(new Date(Date.parse('-000043-03-15T12:00:00Z')));
    expect(parseTimestamptz('12345-01-01 00:00:00+00')).toEqual(new Date(Date.parse('+012345-01-01T00:00:00Z')));
    expect(parseTimestamptz('infinity')).toBe(Infinity);
    expect(parseTimestamptz('-infinity')).toBe(-Infinity);
  });

  it('refuses text in another format rather than guess a date', () => {
    expect(() => parseTimestamptz('01/06/2026 00:00:00 UTC')).toThrow(/ISO/);
  });
});
