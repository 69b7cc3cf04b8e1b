import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { TrackedEvent } from '../tracking/trackedEvent.js';
import type { DeliveryStats } from './expectedValue.js';
import { MS_PER_DAY, utcDate } from '../utcDays.js';

/** How far back CTR and CVR are learned from: long enough for evidence, short enough to follow change. */
const LEARNING_WINDOW_DAYS = 30;

interface LearnedStats extends DeliveryStats {
  /** Valid events this instance accepted since the last refresh started, added on top of ClickHouse's figures. */
  recent: DeliveryStats;
}

const statsRow = z.object({
  line_item: z.string(),
  impression_count: z.coerce.number(),
  click_count: z.coerce.number(),
  conversion_count: z.coerce.number(),
});

/**
 * Valid impressions, clicks and conversions per line item over the learning window, from which
 * selection estimates CTR and CVR: read from ClickHouse every SELECTION_STATS_REFRESH_MS (what every
 * instance delivered) plus this instance's own events since. An estimate, not a bill: events still
 * in flight to ClickHouse when a refresh starts are missing until the next one.
 */
export class DeliveryLearning {
  private readonly stats = new Map<string, LearnedStats>();

  constructor(private readonly ch: ClickHouse) {}

  statsFor(lineItemId: string): DeliveryStats {
    let stats = this.stats.get(lineItemId);
    if (!stats) {
      stats = { impressions: 0, clicks: 0, conversions: 0, recent: { impressions: 0, clicks: 0, conversions: 0 } };
      this.stats.set(lineItemId, stats);
    }
    return stats;
  }

  retainOnly(kept: (lineItemId: string) => boolean): void {
    for (const id of this.stats.keys()) if (!kept(id)) this.stats.delete(id);
  }

  /** Forgets one line item that left the index longer ago than its links live (kept until then: it may come back). */
  forget(lineItemId: string): void {
    this.stats.delete(lineItemId);
  }

  record(event: TrackedEvent): void {
    if (event.ivt !== '') return;
    const stats = this.stats.get(event.line_item_id);
    if (!stats) return;
    const field = event.type === 'impression' ? 'impressions' : event.type === 'click' ? 'clicks' : 'conversions';
    stats[field] += 1;
    stats.recent[field] += 1;
  }

  /**
   * The first refresh, before the index is built: it keeps the figures of every line item
   * ClickHouse has them for, so the build's statsFor finds them and ranks by them at once (a
   * refresh after the build made it sort every list again: 0.07 s of a start at 100,000 line items).
   * The index's onBuilt drops those it did not take (retainOnly).
   */
  async preload(now = Date.now()): Promise<void> {
    await this.refresh(now, true);
  }

  async refresh(now = Date.now(), addMissing = false): Promise<void> {
    for (const stats of this.stats.values()) stats.recent = { impressions: 0, clicks: 0, conversions: 0 };
    const result = await this.ch.client.query({
      // Aliases differ from the column names: ClickHouse would otherwise read the alias inside sum().
      query: `SELECT toString(line_item_id) AS line_item, toString(sum(impressions)) AS impression_count,
                     toString(sum(clicks)) AS click_count, toString(sum(conversions)) AS conversion_count
              FROM daily_stats_v1 WHERE day >= {since:Date}
              GROUP BY line_item_id`,
      query_params: { since: utcDate(now - (LEARNING_WINDOW_DAYS - 1) * MS_PER_DAY) },
      format: 'JSONEachRow',
    });
    const learned = new Map<string, DeliveryStats>();
    for (const row of await result.json()) {
      const counts = statsRow.parse(row);
      learned.set(counts.line_item, {
        impressions: counts.impression_count,
        clicks: counts.click_count,
        conversions: counts.conversion_count,
      });
    }
    if (addMissing) for (const id of learned.keys()) this.statsFor(id);
    for (const [id, stats] of this.stats) {
      const base = learned.get(id);
      stats.impressions = (base?.impressions ?? 0) + stats.recent.impressions;
      stats.clicks = (base?.clicks ?? 0) + stats.recent.clicks;
      stats.conversions = (base?.conversions ?? 0) + stats.recent.conversions;
    }
  }
}
