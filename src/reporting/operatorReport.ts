import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { roundedQuotient } from './performanceMetrics.js';
import { placementDayServes, placementDaySums } from './placementRollup.js';
import { NANO_PPM_PER_USD, revenueShareSchedules, SHARE_SCALE, shareOn } from './revenueShares.js';
import { NANOS_PER_USD_BIGINT } from '../money/nanoUsd.js';
import { eachDate } from '../utcDays.js';

/** The platform's totals of one UTC day, over every publisher and advertiser. */
export interface OperatorDailyRow {
  date: string;
  requests: number;
  filled: number;
  impressions: number;
  invalid_impressions: number;
  clicks: number;
  invalid_clicks: number;
  spend_usd: number;
  publisher_earnings_usd: number;
  platform_margin_usd: number;
}

export const operatorDailyRowColumns = [
  'date',
  'requests',
  'filled',
  'impressions',
  'invalid_impressions',
  'clicks',
  'invalid_clicks',
  'spend_usd',
  'publisher_earnings_usd',
  'platform_margin_usd',
] as const satisfies ReadonlyArray<keyof OperatorDailyRow>;

interface DayTotals {
  requests: number;
  filled: number;
  impressions: number;
  invalidImpressions: number;
  clicks: number;
  invalidClicks: number;
  spendNanos: bigint;
  earningsNanoPpm: bigint;
}

function zeroTotals(): DayTotals {
  return { requests: 0, filled: 0, impressions: 0, invalidImpressions: 0, clicks: 0, invalidClicks: 0, spendNanos: 0n, earningsNanoPpm: 0n };
}

/**
 * GET /v1/admin/reporting: one row per UTC day of the window, ascending, every day present. Spend is
 * the valid spend advertisers were billed; publisher earnings apply each publisher's share in effect
 * that day; the margin is the difference, each rounded once from the exact sums.
 */
export async function* operatorDailyReport(
  stores: { db: SqlExecutor; ch: ClickHouse },
  request: { dateFrom: string; dateTo: string; limit: number; offset: number },
): AsyncGenerator<OperatorDailyRow[]> {
  const days = eachDate(request.dateFrom, request.dateTo).slice(request.offset, request.offset + request.limit);
  if (days.length === 0) return;
  const [from, to] = [days[0]!, days.at(-1)!];
  const [events, serves, schedules] = await Promise.all([
    placementDaySums(stores.ch, { everything: true }, from, to),
    placementDayServes(stores.ch, { everything: true }, from, to),
    revenueShareSchedules(stores.db, null),
  ]);
  const totals = new Map(days.map((day) => [day, zeroTotals()]));
  for (const row of events) {
    const day = totals.get(row.day);
    if (!day) continue;
    day.impressions += row.impressions;
    day.invalidImpressions += row.invalidImpressions;
    day.clicks += row.clicks;
    day.invalidClicks += row.invalidClicks;
    day.spendNanos += row.spendNanos;
    day.earningsNanoPpm += row.spendNanos * shareOn(schedules.get(row.key), row.day);
  }
  for (const row of serves) {
    const day = totals.get(row.day);
    if (!day) continue;
    day.requests += row.requests;
    day.filled += row.filled;
  }
  yield days.map((date) => {
    const day = totals.get(date)!;
    return {
      date,
      requests: day.requests,
      filled: day.filled,
      impressions: day.impressions,
      invalid_impressions: day.invalidImpressions,
      clicks: day.clicks,
      invalid_clicks: day.invalidClicks,
      spend_usd: roundedQuotient(day.spendNanos, NANOS_PER_USD_BIGINT),
      publisher_earnings_usd: roundedQuotient(day.earningsNanoPpm, NANO_PPM_PER_USD),
      platform_margin_usd: roundedQuotient(day.spendNanos * SHARE_SCALE - day.earningsNanoPpm, NANO_PPM_PER_USD),
    };
  });
}
