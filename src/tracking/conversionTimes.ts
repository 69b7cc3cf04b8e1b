import { z } from 'zod';
import type { Postgres } from '../store/postgres.js';

/** How often this process deletes the times of conversions first seen over a day ago. */
const PRUNE_EVERY_MS = 3_600_000;

const timeRow = z.object({ occurred_ms: z.coerce.number() });

/**
 * The event time of a conversion with a conversion_id: the one its first request gave it (kept in
 * conversion_times, migrations/0013), or `occurredAt` when this is the first. Every retry is then
 * written with the first time, so in the first's partition, where ClickHouse's deduplication token
 * drops it should the first insert land after the retry looked for it (a holder cut off while
 * ClickHouse still worked on its insert, a replica that had not fetched it yet). Written on its own
 * (not in the conversion lock's transaction), so that it stays when that holder goes.
 */
export function conversionTimes(db: Postgres) {
  let prunedAt = 0;
  return async function firstTime(eventId: string, occurredAt: number): Promise<number> {
    if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = Date.now();
      await db.query(`DELETE FROM conversion_times WHERE first_seen_at < now() - interval '1 day'`);
    }
    const { rows } = await db.query(
      `INSERT INTO conversion_times (event_id, occurred_ms) VALUES ($1, $2)
       ON CONFLICT (event_id) DO UPDATE SET event_id = EXCLUDED.event_id
       RETURNING occurred_ms`,
      [eventId, occurredAt],
    );
    return timeRow.parse(rows[0]).occurred_ms;
  };
}
