import { z } from 'zod';
import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { membersOf } from '../management/campaignTenancy.js';
import { CAMPAIGN_IDS_PER_QUERY, campaignPageRows } from './reportCampaigns.js';
import type { ReportRequest } from './reportRequest.js';

const campaignIdRows = z.array(z.object({ id: z.string() }));

/**
 * The deleted campaigns a report shows: those of the organization (the tenancy rule of live
 * campaigns, campaignTenancy.ts, applied to their tombstones, migrations/0017) with events, valid
 * or invalid, in the report's window. A delete must not shrink the advertiser's totals or hide what a campaign was
 * billed for, but a deleted campaign with nothing in the window is not listed as a zero row.
 * Organizations that never deleted a campaign pay one indexed Postgres read (none on a repeat, embedded) and no ClickHouse query.
 */
export async function deletedCampaignsWithEvents(
  stores: { db: SqlExecutor; ch: ClickHouse },
  request: Pick<ReportRequest, 'organizationId' | 'campaignIds' | 'dateFrom' | 'dateTo'>,
): Promise<string[]> {
  // Remembered until a write to deleted_campaigns, campaigns or memberships (campaignPageRows).
  const rows = await campaignPageRows<{ id: string }>(
    stores.db,
    `SELECT gone.id FROM deleted_campaigns gone
      WHERE gone.organization_id = $1 AND gone.user_id IN (${membersOf('$1')})
        AND ($2::uuid[] IS NULL OR gone.id = ANY ($2::uuid[]))`,
    [request.organizationId, request.campaignIds],
  );
  const ids = rows.map((row) => row.id);
  const shown: string[] = [];
  for (let start = 0; start < ids.length; start += CAMPAIGN_IDS_PER_QUERY) {
    const result = await stores.ch.client.query({
      // Valid events (the rollup) or invalid ones (daily_ivt_v1): a deleted campaign whose traffic was
      // all invalid is the one a dispute needs in the traffic-quality report. The alias differs from
      // the column: ClickHouse would read the alias (a String) in the WHERE.
      query: `SELECT DISTINCT toString(campaign_id) AS id FROM (
                SELECT campaign_id FROM campaign_daily_stats_v1
                WHERE campaign_id IN {campaign_ids:Array(UUID)} AND day BETWEEN {date_from:Date} AND {date_to:Date}
                UNION ALL
                SELECT campaign_id FROM daily_ivt_v1
                WHERE campaign_id IN {campaign_ids:Array(UUID)} AND day BETWEEN {date_from:Date} AND {date_to:Date}
              )
              SETTINGS max_execution_time = 30`,
      query_params: { campaign_ids: ids.slice(start, start + CAMPAIGN_IDS_PER_QUERY), date_from: request.dateFrom, date_to: request.dateTo },
      format: 'JSONEachRow',
    });
    shown.push(...campaignIdRows.parse(await result.json()).map((row) => row.id));
  }
  return shown;
}
