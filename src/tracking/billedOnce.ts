import type { ClickHouse } from '../store/clickhouse.js';
import { SPOOL_COLUMNS } from './eventSpool.js';
import type { TrackedEvent } from './trackedEvent.js';

/**
 * A serve is billed once for its impression and once for its click, whichever instance and run saw
 * them. Each process's ServeLedger settles that among its own events as they arrive (no query on
 * the pixel's path); what another instance or an earlier run counted is settled here, when a
 * spooled segment is written: the segment's valid link events are looked up in serve_events_v1
 * (clickhouse/0006, keyed by serve id), and those whose serve ClickHouse already counted go in as
 * `duplicate`, unbilled. When that lookup fails the segment is not written (it stays spooled and is
 * retried), so an outage can delay billing but never bill twice.
 */

/** `type \t serve_id \t event_id` of one valid link event: what can be billed only once per serve. */
export type BillableKey = string;

const at = (column: (typeof SPOOL_COLUMNS)[number]) => SPOOL_COLUMNS.indexOf(column);
const EVENT_ID = at('event_id');
const TYPE = at('type');
const SOURCE = at('source');
const SERVE_ID = at('serve_id');
const COST = at('cost_nanos');
const REVENUE = at('revenue_nanos');
const IVT = at('ivt');

function isBillableLink(type: unknown, source: unknown, ivt: unknown): boolean {
  return ivt === '' && (source === 'pixel' || source === 'click') && (type === 'impression' || type === 'click');
}

/** The key of an accepted event that would be billed, or undefined (invalid traffic, imports, conversions). */
export function billableKey(event: TrackedEvent): BillableKey | undefined {
  return isBillableLink(event.type, event.source, event.ivt) ? `${event.type}\t${event.serve_id}\t${event.event_id}` : undefined;
}

/** The same keys read back from a segment's lines: for segments a previous run left in the spool. */
export function billableKeysInLines(body: string): BillableKey[] {
  const keys: BillableKey[] = [];
  for (const line of body.split('\n')) {
    const row = parseRow(line);
    if (row && isBillableLink(row[TYPE], row[SOURCE], row[IVT])) keys.push(`${row[TYPE]}\t${row[SERVE_ID]}\t${row[EVENT_ID]}`);
  }
  return keys;
}

/**
 * Which of the keys' serves ClickHouse already holds as counted by another event (another instance,
 * an earlier run). The event itself does not count: a segment sent again after a crash or a lost
 * answer finds its own events there, and they must go in as they were (its insert deduplication
 * token then completes what the first try left unwritten, views included).
 */
export async function alreadyBilled(ch: ClickHouse, keys: BillableKey[]): Promise<Set<BillableKey>> {
  const serveIds = [...new Set(keys.map((key) => key.split('\t')[1]!))];
  const result = await ch.client.query({
    query: `SELECT type, serve_id, toString(event_id) AS event_id FROM serve_events_v1
            WHERE serve_id IN {serve_ids:Array(String)} AND counted = 1`,
    query_params: { serve_ids: serveIds },
    format: 'JSONEachRow',
  });
  const countedBy = new Map<string, string[]>();
  for (const row of await result.json<{ type: string; serve_id: string; event_id: string }>()) {
    const serve = `${row.type}\t${row.serve_id}`;
    countedBy.set(serve, [...(countedBy.get(serve) ?? []), row.event_id]);
  }
  return new Set(
    keys.filter((key) => {
      const [type, serveId, eventId] = key.split('\t');
      return countedBy.get(`${type}\t${serveId}`)?.some((counted) => counted !== eventId) ?? false;
    }),
  );
}

/** The segment's lines with the events of already billed serves turned into unbilled duplicates. */
export function markDuplicates(body: string, billed: Set<BillableKey>): string {
  return body.replace(/[^\n]+/g, (line) => {
    const row = parseRow(line);
    if (!row || !isBillableLink(row[TYPE], row[SOURCE], row[IVT]) || !billed.has(`${row[TYPE]}\t${row[SERVE_ID]}\t${row[EVENT_ID]}`)) return line;
    row[IVT] = 'duplicate';
    row[COST] = 0;
    row[REVENUE] = 0;
    return JSON.stringify(row);
  });
}

/** A spool line's values; undefined for a line ClickHouse would not parse either (it is quarantined there). */
function parseRow(line: string): unknown[] | undefined {
  if (line === '') return undefined;
  try {
    const row: unknown = JSON.parse(line);
    return Array.isArray(row) ? row : undefined;
  } catch {
    return undefined;
  }
}
