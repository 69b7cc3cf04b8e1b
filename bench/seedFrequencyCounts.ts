import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '../src/store/clickhouse.js';
import { userKeyer } from '../src/serving/userKey.js';
import type { GeneratedCampaign } from './catalogGenerator.js';
import { seededRandom } from './seededRandom.js';
import { BENCH_TRACKING_SECRET } from './serviceProcess.js';
import type { ServingUser } from './trafficMix.js';

/** Of each capped line item's users: the share who already reached the cap, and the share part-way to it. */
const AT_CAP_SHARE = 0.1;
const BELOW_CAP_SHARE = 0.2;
const ROWS_PER_INSERT = 50_000;

/** Which users reached which line item's cap: `${lineItemId} ${userId}`. */
export type UsersAtCap = Set<string>;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How far back a lifetime cap's impressions go. */
const LIFETIME_DAYS = 30;

/** The first hour of a cap's UTC window (the service's windows: clock hour, day, week from Monday, ever). */
function firstHour(per: string, nowMs: number): number {
  const hour = nowMs - (nowMs % HOUR_MS);
  if (per === 'hour') return hour;
  if (per === 'day') return nowMs - (nowMs % DAY_MS);
  // 1970-01-01 was a Thursday: Mondays are 4 days later.
  if (per === 'week') return nowMs - ((nowMs - 4 * DAY_MS) % (7 * DAY_MS));
  return hour - LIFETIME_DAYS * DAY_MS;
}

/**
 * Impressions the users have already seen of capped line items, as if earlier traffic had fired
 * their pixels: rows of frequency_hours_v1, each pair's in one hour drawn from its cap's window up
 * to now (so a week's history lies mostly in earlier hours), keyed as the service keys the
 * publisher's user.id (userKey under the bench's TRACKING_SECRET). The service reads them at start, so some users are
 * at a line item's cap and get another one.
 */
export async function seedFrequencyCounts(ch: ClickHouse, catalog: readonly GeneratedCampaign[], publisherId: string, users: readonly ServingUser[], nowMs: number, seed = 23): Promise<UsersAtCap> {
  const random = seededRandom(seed);
  const keyUser = userKeyer(BENCH_TRACKING_SECRET);
  const keys = users.map((user) => keyUser(publisherId, user.id));
  const lastHour = nowMs - (nowMs % HOUR_MS);
  const atCap: UsersAtCap = new Set();
  const rows: Array<{ line_item_id: string; user_key: string; hour: number; impressions: number }> = [];
  for (const lineItem of catalog.flatMap((campaign) => campaign.lineItems)) {
    const cap = lineItem.stored.frequency_cap;
    if (!cap) continue;
    const first = firstHour(cap.per, nowMs);
    const hours = Math.round((lastHour - first) / HOUR_MS) + 1;
    users.forEach((user, index) => {
      const roll = random();
      if (roll >= AT_CAP_SHARE + BELOW_CAP_SHARE) return;
      const impressions = roll < AT_CAP_SHARE ? cap.impressions : 1 + Math.floor(random() * (cap.impressions - 1));
      if (impressions >= cap.impressions) atCap.add(`${lineItem.id} ${user.id}`);
      const hour = (first + Math.floor(random() * hours) * HOUR_MS) / 1000;
      rows.push({ line_item_id: lineItem.id, user_key: keys[index]!, hour, impressions });
    });
  }
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    // The table deduplicates repeated inserts: each insert names itself (see src/store/clickhouse.ts).
    await ch.client.insert({
      table: 'frequency_hours_v1',
      values: rows.slice(start, start + ROWS_PER_INSERT),
      format: 'JSONEachRow',
      clickhouse_settings: { insert_deduplication_token: `bench-frequency-${randomUUID()}` },
    });
  }
  return atCap;
}
