import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { ADVISORY_LOCKS } from '../store/advisoryLock.js';
import { keyedLock, type KeyedLock } from '../store/keyedLock.js';
import type { Postgres } from '../store/postgres.js';
import type { EventPipeline } from './eventPipeline.js';
import { hashedEventId } from './hashedEventId.js';
import { checkImportedRange, type ImportedRange } from './importedRanges.js';
import type { TrackedEvent } from './trackedEvent.js';

/**
 * The event id of an imported line under an import key: the same key, line number and text always
 * give the same id, so a resent file's lines are known. A different file under the same key is
 * refused where its lines differ (importedRanges.ts), before any of them is stored.
 */
export function importedEventId(key: string, line: number, text: string): string {
  return hashedEventId(`import\n${key}\n${line}\n${text}`);
}

/**
 * How the line ranges (batches) of an import with a key are stored, so that sending the file again,
 * even while an earlier request of it still writes, stores each line once:
 *
 * - the range's text is checked against the one first sent under the key (importedRanges.ts);
 * - the range's lookup and writes run under a lock of (key, first line), in this process and across
 *   instances: a resend looks only after the earlier request's writes of the range returned;
 * - a write of the range an earlier request sent and ClickHouse refused is sent again first, as it was
 *   (EventPipeline.completeRefusedWrites): a refusal can come after events_v1 took the rows and before
 *   every view did (a full disk), and the look-up would find them and leave the views without them;
 * - the events an earlier request stored are looked up by their ids and left out; the rest are judged
 *   by the billing ceilings (`judge`: a batch partly stored by an earlier request, one month's insert
 *   refused, was judged whole, its stored lines' cost counted twice, and valid lines went unbilled) and written
 *   to ClickHouse at once (EventPipeline.writeNow), past the spool, so that the next request finds them,
 *   one insert per calendar month (UTC). events_v1 is partitioned by month and an insert makes one part
 *   per month, each committed on its own: a range over a month's end written as one insert could be
 *   seen with one month and without the other, and the resend would write the other under a token of
 *   its own, beside the first request's late part. One month's rows are one part, seen whole or not at all;
 * - an insert's deduplication token is its ids: an insert whose answer was lost (ClickHouse stored it
 *   after the request gave up) and the resend's insert of the same lines count once.
 *
 * Resolves to the range's events that were already stored.
 */
export function importOnceStore(deps: { db: Postgres; ch: ClickHouse; events: EventPipeline; lock: KeyedLock }, key: string) {
  return async (batch: TrackedEvent[], range: ImportedRange, judge: (fresh: TrackedEvent[], write: () => Promise<void>) => Promise<void>): Promise<TrackedEvent[]> => {
    await checkImportedRange(deps.db, key, range);
    if (batch.length === 0) return [];
    return deps.lock(`${key}\n${range.first}`, async () => {
      // A write of these lines that ClickHouse refused may be in events_v1 without every view: sent
      // again first, as it was, so that those found stored below are stored whole.
      await deps.events.completeRefusedWrites(batch.map((event) => event.event_id));
      const stored = await storedEventIds(deps.ch, batch);
      const fresh = batch.filter((event) => !stored.has(event.event_id));
      // Only the lines written here: the stored ones' cost is in the spend the ceilings read.
      await judge(fresh, async () => {
        for (const month of byMonth(fresh)) {
          const ids = createHash('sha256').update(month.map((event) => event.event_id).join(',')).digest('hex');
          await deps.events.writeNow(month, `import:${ids}`);
        }
      });
      return batch.filter((event) => stored.has(event.event_id));
    });
  };
}

/**
 * A range's steps wait up to 10 s for another request's step of the same range: a lookup and at most
 * two inserts of up to 1000 rows, normally milliseconds. One waiting longer answers 503 and the file is
 * resent. Three ranges at once, in all (keyedLock.ts says why there is a cap): an import holds one, a resend of it another.
 */
export function importLock(db: Postgres): KeyedLock {
  return keyedLock(db, {
    lockClass: ADVISORY_LOCKS.importRangeClass,
    lockKeyOf: (rangeKey) => createHash('sha256').update(rangeKey).digest().readInt32BE(0),
    holders: 3,
    waitMs: 10_000,
    busy: () => new ApiError('unavailable', 'too many keyed imports are being written at once; retry later'),
    stillRunning: () => new ApiError('unavailable', 'another request with this Idempotency-Key is still writing these lines; retry later'),
  });
}

/** The events by calendar month (UTC) of their time, the partition of events_v1. */
function byMonth(events: TrackedEvent[]): TrackedEvent[][] {
  const months = new Map<string, TrackedEvent[]>();
  for (const event of events) {
    const month = new Date(event.event_time).toISOString().slice(0, 7);
    const list = months.get(month);
    if (list) list.push(event);
    else months.set(month, [event]);
  }
  return [...months.values()];
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
