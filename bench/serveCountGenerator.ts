import type { ClickHouse } from '../src/store/clickhouse.js';
import { DAY_MS, DAYS } from './eventGenerator.js';

/** Serving instances flush their counts every few seconds; 24 writes per placement and day stand for them. */
const WRITES_PER_DAY = 24;

export interface ServeCountTotals {
  requests: number;
  filled: number;
}

/**
 * Serve requests and fills per placement over the 92 days ending today (or the last `days` of them), written into
 * placement_serve_counts_v1 the way serving instances write them: one row per placement and day in
 * each of 24 separate inserts (so the table holds unmerged parts, as after a day of flushes).
 * Every count is derived from cityHash64 of the row, so a run is reproducible; returns the totals.
 */
export async function generateServeCounts(ch: ClickHouse, placementIds: string[], todayMs: number, days: number = DAYS): Promise<ServeCountTotals> {
  for (let write = 0; write < WRITES_PER_DAY; write++) {
    await ch.client.command({
      query: `
        INSERT INTO placement_serve_counts_v1 (day, placement_id, requests, filled)
        SELECT day, placement_id, requests, intDiv(requests * (60 + cityHash64(number, {write:UInt32}, 2) % 35), 100) AS filled
        FROM (
          SELECT number,
                 toDate(fromUnixTimestamp64Milli(toInt64({start_ms:Int64} + intDiv(number, length({placement_ids:Array(String)})) * {day_ms:Int64}), 'UTC')) AS day,
                 {placement_ids:Array(String)}[number % length({placement_ids:Array(String)}) + 1] AS placement_id,
                 500 + cityHash64(number, {write:UInt32}, 1) % 1000 AS requests
          FROM numbers({rows:UInt64})
        )`,
      query_params: { write, start_ms: todayMs - (days - 1) * DAY_MS, day_ms: DAY_MS, placement_ids: placementIds, rows: placementIds.length * days },
    });
  }
  const result = await ch.client.query({
    query: 'SELECT toString(sum(requests)) AS requests, toString(sum(filled)) AS filled FROM placement_serve_counts_v1 WHERE placement_id IN {placement_ids:Array(String)}',
    query_params: { placement_ids: placementIds },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ requests: string; filled: string }>();
  return { requests: Number(row!.requests), filled: Number(row!.filled) };
}
