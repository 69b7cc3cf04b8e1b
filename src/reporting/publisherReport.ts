import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { addPublisherSums, publisherMetricNames, publisherMetrics, ZERO_PUBLISHER_SUMS, type PublisherMetrics, type PublisherSums } from './publisherMetrics.js';
import { placementDayServes, placementDaySums } from './placementRollup.js';
import { revenueShareSchedules, shareOn } from './revenueShares.js';
import { eachDate } from '../utcDays.js';

type Stores = { db: SqlExecutor; ch: ClickHouse };

/** Placement ids per ClickHouse query: up to 128 characters each, and a server gets them in the URL. */
const PLACEMENT_IDS_PER_QUERY = 1000;

export interface PublisherReportRequest {
  publisherId: string;
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
}

export interface PublisherPlacementRow extends PublisherMetrics {
  placement_id: string;
  placement_name: string | null;
}
export interface PublisherDailyRow extends PublisherMetrics {
  date: string;
}

export const publisherPlacementRowColumns = ['placement_id', 'placement_name', ...publisherMetricNames] as const satisfies ReadonlyArray<
  keyof PublisherPlacementRow
>;
export const publisherDailyRowColumns = ['date', ...publisherMetricNames] as const satisfies ReadonlyArray<keyof PublisherDailyRow>;

/** The publisher's placements in creation order (id breaks ties), a page of them or all (limit null). */
async function publisherPlacements(db: SqlExecutor, publisherId: string, limit: number | null, offset: number) {
  const { rows } = await db.query<{ id: string; name: string | null }>(
    'SELECT id, name FROM placements WHERE publisher_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3',
    [publisherId, limit, offset],
  );
  return rows;
}

/**
 * Sums per `keyOf(placement, day)` for the given placements of the publisher over the window: events
 * from the placement rollup, each day's valid spend times the share in effect that day, and serve counts.
 */
async function sumsBy(
  stores: Stores,
  request: PublisherReportRequest,
  placementIds: string[],
  keyOf: (placementId: string, day: string) => string,
): Promise<Map<string, PublisherSums>> {
  const schedule = (await revenueShareSchedules(stores.db, [request.publisherId])).get(request.publisherId);
  const sums = new Map<string, PublisherSums>();
  const add = (key: string, part: Partial<PublisherSums>) => sums.set(key, addPublisherSums(sums.get(key) ?? ZERO_PUBLISHER_SUMS, part));
  for (let start = 0; start < placementIds.length; start += PLACEMENT_IDS_PER_QUERY) {
    const scope = { publisherId: request.publisherId, placementIds: placementIds.slice(start, start + PLACEMENT_IDS_PER_QUERY) };
    const [events, serves] = await Promise.all([
      placementDaySums(stores.ch, scope, request.dateFrom, request.dateTo),
      placementDayServes(stores.ch, scope, request.dateFrom, request.dateTo),
    ]);
    for (const row of events) {
      add(keyOf(row.key, row.day), {
        impressions: row.impressions,
        clicks: row.clicks,
        // A forged link's impressions (bad_token) carry whatever placement its forger wrote into it:
        // not this publisher's traffic. The operator's totals keep them.
        invalidImpressions: row.invalidImpressions - row.forgedImpressions,
        earningsNanoPpm: row.spendNanos * shareOn(schedule, row.day),
      });
    }
    for (const row of serves) add(keyOf(row.key, row.day), { requests: row.requests, filled: row.filled });
  }
  return sums;
}

/**
 * breakdown=placement: every placement of the publisher (zero rows for those without traffic), in
 * creation order, paged in Postgres; only the page's placements are read in ClickHouse.
 */
export async function* publisherPlacementReport(stores: Stores, request: PublisherReportRequest): AsyncGenerator<PublisherPlacementRow[]> {
  const placements = await publisherPlacements(stores.db, request.publisherId, request.limit, request.offset);
  if (placements.length === 0) return;
  const sums = await sumsBy(stores, request, placements.map((placement) => placement.id), (placementId) => placementId);
  yield placements.map((placement) => ({
    placement_id: placement.id,
    placement_name: placement.name,
    ...publisherMetrics(sums.get(placement.id) ?? ZERO_PUBLISHER_SUMS),
  }));
}

/** breakdown=daily: every UTC day of the window, ascending, summed over the publisher's placements; paging walks the days. */
export async function* publisherDailyReport(stores: Stores, request: PublisherReportRequest): AsyncGenerator<PublisherDailyRow[]> {
  const days = eachDate(request.dateFrom, request.dateTo).slice(request.offset, request.offset + request.limit);
  if (days.length === 0) return;
  const placements = await publisherPlacements(stores.db, request.publisherId, null, 0);
  const pageRequest = { ...request, dateFrom: days[0]!, dateTo: days.at(-1)! };
  const sums = await sumsBy(stores, pageRequest, placements.map((placement) => placement.id), (_, day) => day);
  yield days.map((date) => ({ date, ...publisherMetrics(sums.get(date) ?? ZERO_PUBLISHER_SUMS) }));
}
