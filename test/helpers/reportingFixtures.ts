import { randomUUID } from 'node:crypto';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import type { TestContext } from './testApp.js';
import { sampleEvent } from './sampleEvent.js';

/** Reporting tests set up campaigns straight in Postgres: reporting only reads them. */

export interface CampaignFixture {
  id: string;
  name: string;
  brand_name: string;
  objective: string | null;
  status: string;
  line_item_id: string;
}

export async function createReportCampaign(
  ctx: TestContext,
  userId: string,
  fields: Partial<Pick<CampaignFixture, 'name' | 'brand_name' | 'objective' | 'status'>> = {},
): Promise<CampaignFixture> {
  const name = fields.name ?? `campaign-${randomUUID().slice(0, 8)}`;
  const brandName = fields.brand_name ?? 'Acme';
  const objective = fields.objective === undefined ? 'awareness' : fields.objective;
  const status = fields.status ?? 'active';
  const { rows } = await ctx.stores.db.query<{ id: string }>(
    'INSERT INTO campaigns (user_id, name, brand_name, objective, status) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [userId, name, brandName, objective, status],
  );
  const campaignId = rows[0]!.id;
  const lineItem = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO line_items (campaign_id, title, status, budget_daily, budget_currency, bid_type, bid_value)
     VALUES ($1, 'line item', 'active', 1000, 'USD', 'tCPM', 2.5) RETURNING id`,
    [campaignId],
  );
  return { id: campaignId, name, brand_name: brandName, objective, status, line_item_id: lineItem.rows[0]!.id };
}

/**
 * Writes events into events_v1 as the event pipeline does; the materialized views roll them up
 * into daily_stats_v1 and daily_ivt_v1 for real.
 */
export async function insertEvents(ctx: TestContext, events: Array<Partial<TrackedEvent>>): Promise<void> {
  await ctx.stores.ch.client.insert({
    table: 'events_v1',
    values: events.map((overrides) => {
      const event = sampleEvent(overrides);
      return { ...event, event_time: new Date(event.event_time).toISOString().replace('T', ' ').replace('Z', '') };
    }),
    format: 'JSONEachRow',
  });
}

/** Milliseconds of a UTC timestamp written 'YYYY-MM-DD' plus an optional 'Thh:mm:ss.sss'. */
export function at(date: string, time = '12:00:00.000'): number {
  return Date.parse(`${date}T${time}Z`);
}
