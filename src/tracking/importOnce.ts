import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { EventPipeline } from './eventPipeline.js';
import { hashedEventId } from './hashedEventId.js';
import type { TrackedEvent } from './trackedEvent.js';

/** The import's `Idempotency-Key` header: 1 to 255 printable ASCII characters, no spaces (a UUID, a file name and date). */
export const importKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces');

/**
 * The event id of an imported line under an import key: the same key, line number and text always
 * give the same id, so a resent file's lines are known, and a different file sent with the same
 * key shares no ids with the first (its lines differ).
 */
export function importedEventId(key: string, line: number, text: string): string {
  return hashedEventId(`import\n${key}\n${line}\n${text}`);
}

/**
 * How the batches of an import with a key are stored: its lines an earlier request with the key
 * already stored are left out (looked up by their ids), the rest written to ClickHouse at once
 * (EventPipeline.writeNow), past the spool, so that the next request finds them. The insert's
 * deduplication token is its ids: a resend whose lookup ran while the cut request's last insert was
 * still on its way writes the same rows with the same token, and ClickHouse keeps one. Resolves to
 * the batch's events that were already stored.
 */
export function importOnceStore(ch: ClickHouse, events: EventPipeline) {
  return async (batch: TrackedEvent[]): Promise<TrackedEvent[]> => {
    const stored = await storedEventIds(ch, batch);
    const fresh = batch.filter((event) => !stored.has(event.event_id));
    if (fresh.length > 0) {
      const ids = createHash('sha256').update(fresh.map((event) => event.event_id).join(',')).digest('hex');
      await events.writeNow(fresh, `import:${ids}`);
    }
    return batch.filter((event) => stored.has(event.event_id));
  };
}

const idRow = z.object({ id: z.string() });

/** Which of the batch's event ids events_v1 holds, read only in the batch's campaigns and time span (the table's key). */
async function storedEventIds(ch: ClickHouse, batch: TrackedEvent[]): Promise<Set<string>> {
  let from = Infinity;
  let to = -Infinity;
  const campaigns = new Set<string>();
  for (const event of batch) {
    from = Math.min(from, event.event_time);
    to = Math.max(to, event.event_time);
    campaigns.add(event.campaign_id);
  }
  const result = await ch.client.query({
    query: `SELECT DISTINCT toString(event_id) AS id FROM events_v1
            WHERE campaign_id IN {campaigns:Array(UUID)}
              AND event_time BETWEEN fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND fromUnixTimestamp64Milli({to:Int64}, 'UTC')
              AND event_id IN {ids:Array(UUID)}`,
    query_params: { campaigns: [...campaigns], from, to, ids: batch.map((event) => event.event_id) },
    format: 'JSONEachRow',
  });
  return new Set((await result.json()).map((row) => idRow.parse(row).id));
}
