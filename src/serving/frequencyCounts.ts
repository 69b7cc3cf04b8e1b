import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { TrackedEvent } from '../tracking/trackedEvent.js';
import type { FrequencyCapWindow } from '../management/frequencyCapSchema.js';

/** A capped line item's valid impressions per keyed user in the current window; the ad index reads it on every serve. */
export type UserCounts = Map<string, number>;

interface UnflushedImpression {
  seq: number;
  lineItemId: string;
  userKey: string;
  timeMs: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
// 1970-01-01 was a Thursday: weeks start on Monday, 4 days later.
const WEEK_OFFSET_MS = 4 * DAY_MS;
const countRow = z.object({ line_item: z.string(), user_key: z.string(), impressions: z.coerce.number() });

/** The start of the UTC window that holds `nowMs`. */
function windowStart(per: FrequencyCapWindow, nowMs: number): number {
  if (per === 'hour') return nowMs - (nowMs % HOUR_MS);
  if (per === 'day') return nowMs - (nowMs % DAY_MS);
  if (per === 'week') return nowMs - ((nowMs - WEEK_OFFSET_MS) % (7 * DAY_MS));
  return 0;
}

/**
 * Valid impressions per (capped line item, keyed user) in each cap's current window, kept the way
 * SpendPacing keeps spend: ClickHouse `frequency_hours_v1` (every instance's impressions) re-read
 * every PACING_SYNC_MS, plus this instance's accepted impressions not written there yet, counted
 * the moment the pixel is accepted. Only line items with a cap are tracked, and only users who
 * saw them in the window are held in memory.
 */
export class FrequencyCounts {
  private readonly capped = new Map<string, { per: FrequencyCapWindow; counts: UserCounts }>();
  private unflushed: UnflushedImpression[] = [];
  private acceptedSeq = 0;

  constructor(
    private readonly ch: ClickHouse,
    private readonly pendingEvents: () => number,
  ) {}

  /** The counts of a capped line item, shared by every index build so a rebuild keeps them. */
  countsFor(lineItemId: string, per: FrequencyCapWindow): UserCounts {
    let tracked = this.capped.get(lineItemId);
    if (!tracked || tracked.per !== per) this.capped.set(lineItemId, (tracked = { per, counts: new Map() }));
    return tracked.counts;
  }

  /** Forgets line items no longer capped in the index. */
  retainOnly(lineItemIds: Set<string>): void {
    for (const id of this.capped.keys()) if (!lineItemIds.has(id)) this.capped.delete(id);
  }

  /** Forgets one line item that left the index (an incremental patch). */
  forget(lineItemId: string): void {
    this.capped.delete(lineItemId);
  }

  /** Every accepted event, so that `acceptedSeq` lines up with the pipeline's `pending()`. */
  record(event: TrackedEvent): void {
    const seq = ++this.acceptedSeq;
    if (event.type !== 'impression' || event.ivt !== '' || event.user_key === '') return;
    const tracked = this.capped.get(event.line_item_id);
    if (!tracked) return;
    this.unflushed.push({ seq, lineItemId: event.line_item_id, userKey: event.user_key, timeMs: event.event_time });
    tracked.counts.set(event.user_key, (tracked.counts.get(event.user_key) ?? 0) + 1);
  }

  /** Re-reads the windows' counts from ClickHouse and adds what this instance accepted that is not there yet. */
  async sync(nowMs = Date.now()): Promise<void> {
    const writtenThroughSeq = this.acceptedSeq - this.pendingEvents();
    const byWindow = new Map<FrequencyCapWindow, string[]>();
    for (const [id, { per }] of this.capped) byWindow.set(per, [...(byWindow.get(per) ?? []), id]);
    const written = new Map<string, UserCounts>();
    for (const [per, ids] of byWindow) {
      const result = await this.ch.client.query({
        query: `SELECT toString(line_item_id) AS line_item, user_key, toString(sum(impressions)) AS impressions
                FROM frequency_hours_v1
                WHERE line_item_id IN {ids:Array(UUID)} AND hour >= toDateTime({from:UInt32}, 'UTC')
                GROUP BY line_item_id, user_key`,
        query_params: { ids, from: Math.floor(windowStart(per, nowMs) / 1000) },
        format: 'JSONEachRow',
      });
      for (const row of await result.json()) {
        const { line_item, user_key, impressions } = countRow.parse(row);
        let counts = written.get(line_item);
        if (!counts) written.set(line_item, (counts = new Map()));
        counts.set(user_key, impressions);
      }
    }
    // Everything after the last await runs without yielding: no event is recorded half-way through.
    this.unflushed = this.unflushed.filter((impression) => impression.seq > writtenThroughSeq);
    for (const [id, tracked] of this.capped) {
      tracked.counts.clear();
      for (const [userKey, count] of written.get(id) ?? []) tracked.counts.set(userKey, count);
    }
    for (const impression of this.unflushed) {
      const tracked = this.capped.get(impression.lineItemId);
      if (!tracked || impression.timeMs < windowStart(tracked.per, nowMs)) continue;
      tracked.counts.set(impression.userKey, (tracked.counts.get(impression.userKey) ?? 0) + 1);
    }
  }
}
