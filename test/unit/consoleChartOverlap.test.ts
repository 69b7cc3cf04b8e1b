import { describe, expect, it } from 'vitest';
import { coincidingSeries } from '../../web/console/advertiser/coincidingSeries.js';
import type { DailyRow } from '../../src/reporting/dailyReport.js';

const day = (date: string, impressions: number, clicks: number, spend_usd: number) => ({ date, impressions, clicks, spend_usd }) as DailyRow;

describe('console daily chart: series drawn over one another', () => {
  it('names the series at the same height on every day, as each axis scales from 0', () => {
    // 3 impressions, 3 clicks and 1.50 USD: all three at the top of their axes (con39).
    expect(coincidingSeries([day('2026-11-24', 0, 0, 0), day('2026-11-25', 3, 3, 1.5)])).toEqual([['Impressions', 'Clicks', 'Spend']]);
    expect(coincidingSeries([day('2026-11-24', 10, 2, 1), day('2026-11-25', 20, 4, 2)])).toEqual([['Impressions', 'Spend']]);
  });

  it('leaves out a series one day tells apart, and names none when every line shows or there are no days', () => {
    expect(coincidingSeries([day('2026-11-24', 10, 10, 1), day('2026-11-25', 20, 10, 2)])).toEqual([['Impressions', 'Spend']]);
    expect(coincidingSeries([day('2026-11-24', 10, 2, 2), day('2026-11-25', 20, 4, 1)])).toEqual([]);
    expect(coincidingSeries([])).toEqual([]);
  });
});
