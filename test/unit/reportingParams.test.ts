import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import {
  parseCampaignReportParams,
  parseEventExportParams,
  parseOperatorReportParams,
  parsePublisherReportParams,
  parseTrafficQualityParams,
} from '../../src/reporting/reportingParams.js';
import { addDays, daysBetween, eachDate, isCalendarDate, todayUtc } from '../../src/utcDays.js';

function badRequest(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a bad_request');
}

describe('isCalendarDate', () => {
  it('accepts real dates written YYYY-MM-DD, leap days included', () => {
    expect(isCalendarDate('2026-01-05')).toBe(true);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2000-02-29')).toBe(true);
  });

  it('rejects dates that do not exist and other spellings', () => {
    for (const text of ['2026-02-30', '2026-02-29', '2100-02-29', '2026-13-01', '2026-00-10', '2026-1-5', '2026-01-05T00:00:00Z', ' 2026-01-05', '20260105']) {
      expect(isCalendarDate(text), text).toBe(false);
    }
  });
});

describe('UTC date arithmetic', () => {
  it('counts days across month, year and leap-day boundaries', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(daysBetween('2026-01-01', '2026-04-03')).toBe(92);
    expect(eachDate('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(eachDate('2026-03-02', '2026-03-01')).toEqual([]);
    expect(todayUtc(new Date('2026-05-31T23:59:59.999Z'))).toBe('2026-05-31');
  });
});

describe('parseCampaignReportParams', () => {
  it('applies the spec defaults', () => {
    const today = todayUtc();
    expect(parseCampaignReportParams({}, 'json')).toEqual({
      date_from: addDays(today, -30),
      date_to: today,
      breakdown: 'campaign',
      campaign_ids: null,
      limit: 100,
      offset: 0,
      format: 'json',
    });
  });

  it('takes campaign_ids comma-separated or repeated, dropping invalid entries and duplicates', () => {
    const a = '6f1c2a9e-1b7d-4c1e-9a53-0b2f6d1e8a10';
    const b = 'A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D';
    expect(parseCampaignReportParams({ campaign_ids: `${a}, nope ,${b},${a}` }, 'json').campaign_ids).toEqual([a, b.toLowerCase()]);
    expect(parseCampaignReportParams({ campaign_ids: [a, `x,${b}`] }, 'json').campaign_ids).toEqual([a, b.toLowerCase()]);
    expect(parseCampaignReportParams({ campaign_ids: 'nope' }, 'json').campaign_ids).toEqual([]);
    expect(parseCampaignReportParams({ campaign_ids: ' , ' }, 'json').campaign_ids).toBeNull();
  });

  it('measures the window as date_to minus date_from: 92 days pass, 93 do not', () => {
    expect(parseCampaignReportParams({ date_from: '2026-01-01', date_to: '2026-04-03' }, 'json').date_to).toBe('2026-04-03');
    const error = badRequest(() => parseCampaignReportParams({ date_from: '2026-01-01', date_to: '2026-04-04' }, 'json'));
    expect(error.code).toBe('bad_request');
    expect(error.details).toEqual([{ path: 'date_to', message: expect.stringContaining('93 days') }]);
  });

  it('rejects a reversed range, with a message that says so', () => {
    const error = badRequest(() => parseCampaignReportParams({ date_from: '2026-03-02', date_to: '2026-03-01' }, 'json'));
    expect(error.message).toBe('date_to: must not be before date_from');
  });

  it('says which date was assumed when the window is reversed over a default, on every route with a window', () => {
    const from = addDays(todayUtc(), -30);
    const past = addDays(from, -5);
    const parsers = [
      (query: object) => parseCampaignReportParams(query, 'json'),
      (query: object) => parseTrafficQualityParams(query, 'json'),
      (query: object) => parsePublisherReportParams(query, 'json'),
      (query: object) => parseOperatorReportParams(query, 'json'),
      (query: object) => parseEventExportParams({ campaign_id: '6f1c2a9e-1b7d-4c1e-9a53-0b2f6d1e8a10', ...query }, 'ndjson'),
    ];
    for (const parse of parsers) {
      expect(badRequest(() => parse({ date_to: past })).message).toBe(
        `date_to: ${past} is before date_from, which defaults to today − 30 (${from}): send date_from too`,
      );
      const tomorrow = addDays(todayUtc(), 1);
      expect(badRequest(() => parse({ date_from: tomorrow })).message).toBe(
        `date_to: defaults to today (${todayUtc()}), which is before date_from ${tomorrow}: send date_to too`,
      );
      expect(parse({}).date_from).toBe(from);
      expect(parse({ date_from: past }).date_to).toBe(todayUtc());
    }
  });

  it('rejects dates ClickHouse cannot compare with its Date type', () => {
    expect(badRequest(() => parseCampaignReportParams({ date_from: '1969-12-31', date_to: '1970-01-02' }, 'json')).code).toBe('bad_request');
  });

  it('bounds limit by the format: 1000 for JSON, 100000 for CSV', () => {
    expect(parseCampaignReportParams({ limit: '1000' }, 'json').limit).toBe(1000);
    expect(badRequest(() => parseCampaignReportParams({ limit: '1001' }, 'json')).details).toEqual([
      { path: 'limit', message: 'must be between 1 and 1000' },
    ]);
    expect(parseCampaignReportParams({ limit: '100000' }, 'csv').limit).toBe(100000);
    expect(parseCampaignReportParams({ limit: '5000', format: 'csv' }, 'json').format).toBe('csv');
  });

  it('rejects limits and offsets that are not whole numbers', () => {
    for (const query of [{ limit: '1e2' }, { limit: ' 5' }, { limit: '0x10' }, { offset: '-0' }, { offset: '' }, { limit: ['1', '2'] }]) {
      expect(badRequest(() => parseCampaignReportParams(query, 'json')).code, JSON.stringify(query)).toBe('bad_request');
    }
  });
});

describe('reporting parameters given wrong', () => {
  it('says a parameter is given more than once (limit=1&limit=2), in place of a type error', () => {
    const error = badRequest(() => parseCampaignReportParams({ limit: ['1', '2'], date_from: ['2026-03-01', '2026-03-02'] }, 'json'));
    expect(error.details).toEqual([
      { path: 'limit', message: 'is given more than once' },
      { path: 'date_from', message: 'is given more than once' },
    ]);
    expect(error.message).toBe('limit: is given more than once; date_from: is given more than once');
  });

  it('reports a date that does not exist, and no window measured from it', () => {
    const error = badRequest(() => parseCampaignReportParams({ date_from: '2026-02-30' }, 'json'));
    expect(error.details).toEqual([{ path: 'date_from', message: 'must be a calendar date written YYYY-MM-DD' }]);
    expect(badRequest(() => parseTrafficQualityParams({ date_from: '2026-01-01', date_to: '2026-13-01' }, 'json')).details).toEqual([
      { path: 'date_to', message: 'must be a calendar date written YYYY-MM-DD' },
    ]);
  });
});

describe('parseTrafficQualityParams', () => {
  it('takes the same window and paging parameters, without breakdown', () => {
    const params = parseTrafficQualityParams({ date_from: '2026-03-01', date_to: '2026-03-31' }, 'csv');
    expect(params).toEqual({ date_from: '2026-03-01', date_to: '2026-03-31', campaign_ids: null, limit: 100, offset: 0, format: 'csv' });
  });

  it('refuses breakdown, which this report does not take, and any other unknown parameter, naming each', () => {
    const error = badRequest(() => parseTrafficQualityParams({ breakdown: 'daily', date_form: '2026-03-01' }, 'json'));
    expect(error.details).toEqual([
      { path: 'breakdown', message: 'unknown parameter' },
      { path: 'date_form', message: 'unknown parameter' },
    ]);
  });
});
