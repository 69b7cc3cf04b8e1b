import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { SPOOL_COLUMNS, spooledRow } from './eventSpool.js';
import type { TrackedEvent } from './trackedEvent.js';

/**
 * A serve is billed once for its impression and once for its click, whichever instance and run saw
 * them. Each process's ServeLedger settles that among its own events as they arrive (no query on
 * the pixel's path); what another instance or an earlier run counted is settled here, inside the
 * insert of a spooled segment: the engine reads the segment (file() or input(), its own parser),
 * joins its valid link events to what serve_events_v1 (clickhouse/0006, keyed by serve id) counted
 * for those serves, and writes those whose serve was already counted by another event as
 * `duplicate`, unbilled. The check and the write are one statement: when ClickHouse cannot answer,
 * nothing is written (the segment stays spooled and is retried), so an outage can delay billing but
 * never bill twice. Sending the segment's serve ids to a query of their own (an Array(String)
 * parameter of 50,000 ids) cost more than writing the segment's events.
 */

const at = (column: (typeof SPOOL_COLUMNS)[number]) => SPOOL_COLUMNS.indexOf(column);
const TYPE = at('type');
const SOURCE = at('source');
const SERVE_ID = at('serve_id');
const IVT = at('ivt');

function isBillableLink(type: unknown, source: unknown, ivt: unknown): boolean {
  return ivt === '' && (source === 'pixel' || source === 'click') && (type === 'impression' || type === 'click');
}

/** The serve id of an accepted event that would be billed, or undefined (invalid traffic, imports, conversions). */
export function billableServeId(event: TrackedEvent): string | undefined {
  return isBillableLink(event.type, event.source, event.ivt) ? event.serve_id : undefined;
}

/**
 * Serve ids start with the serve's time (src/serving/adPayload.ts: 6 bytes of ms, base64url), so
 * the first PREFIX_CHARS characters name a 4-second slice of serves. A segment's billable serves
 * fall in few slices: the check reads serve_events_v1 only between each slice's lowest and highest
 * id of the segment, a few primary-key ranges, instead of being handed every id.
 */
const PREFIX_CHARS = 6;
/** Beyond this many ranges (serve ids that are not time-first, clicks on serves of many past slices), shorter prefixes merge them. */
const MAX_RANGES = 200;

/**
 * The serve ids of a segment's billable events, kept as the lowest and highest id per prefix.
 * JavaScript orders strings as ClickHouse orders their UTF-8 bytes except around surrogate pairs;
 * serve ids are ASCII (base64url, or UUIDs from older releases).
 */
export class ServeIdRanges {
  private readonly byPrefix = new Map<string, [string, string]>();

  add(serveId: string): void {
    const prefix = serveId.slice(0, PREFIX_CHARS);
    const range = this.byPrefix.get(prefix);
    if (range === undefined) this.byPrefix.set(prefix, [serveId, serveId]);
    else if (serveId < range[0]) range[0] = serveId;
    else if (serveId > range[1]) range[1] = serveId;
  }

  get size(): number {
    return this.byPrefix.size;
  }

  /** At most MAX_RANGES [lowest, highest] pairs that cover every serve id added. */
  ranges(): Array<[string, string]> {
    let ranges = [...this.byPrefix.values()];
    for (let chars = PREFIX_CHARS - 1; ranges.length > MAX_RANGES; chars--) {
      const merged = new Map<string, [string, string]>();
      for (const [low, high] of ranges) {
        const prefix = low.slice(0, chars);
        const range = merged.get(prefix);
        if (range === undefined) merged.set(prefix, [low, high]);
        else {
          if (low < range[0]) range[0] = low;
          if (high > range[1]) range[1] = high;
        }
      }
      ranges = [...merged.values()];
    }
    return ranges;
  }
}

/** The serve ids of the billable events in a segment's lines: for segments a previous run left in the spool. */
export function billableServeIdsInLines(body: string): ServeIdRanges {
  const serves = new ServeIdRanges();
  for (const line of body.split('\n')) {
    const row = spooledRow(line);
    if (row && isBillableLink(row[TYPE], row[SOURCE], row[IVT]) && typeof row[SERVE_ID] === 'string') serves.add(row[SERVE_ID]);
  }
  return serves;
}

/** Every event type events_v1 holds. */
const EVENT_TYPES = ['impression', 'click', 'conversion'] as const satisfies ReadonlyArray<TrackedEvent['type']>;

/**
 * A spooled row's type, read through an Enum of the known types: a line of another type (a spool
 * file edited by hand) fails its insert with UNKNOWN_ELEMENT_OF_ENUM, which is unparsable
 * (insertErrors.ts), so the pipeline's halving quarantines that line like any line ClickHouse
 * cannot parse, instead of storing an event no report counts but whose cost is spent.
 */
const CHECKED_TYPE = `toString(CAST(type AS Enum8(${EVENT_TYPES.map((type, index) => `'${type}' = ${index + 1}`).join(', ')}))) AS type`;

/** The SELECT of every insert of spooled rows without billable events: `source` as in billedOnceSelect, the type checked. */
export function spooledSelect(source: string): string {
  return `SELECT ${SPOOL_COLUMNS.map((column) => (column === 'type' ? CHECKED_TYPE : column)).join(', ')} FROM ${source}`;
}

/**
 * The SELECT an insert of spooled rows runs instead of spooledSelect when the rows hold billable
 * events: `source` is the engine's reader of the rows (file(...) or input(...)), listing
 * SPOOL_COLUMNS. A row is a duplicate when it is a valid impression or click and serve_events_v1
 * holds a counted event of the same serve and type with another event id: a segment sent again
 * after a crash or a lost answer finds its own events there, and they must go in as they were
 * (its insert deduplication token then completes what the first try left unwritten, views included).
 * It is one too when an earlier valid row of the same serve and type is in the rows themselves
 * (`nth`, by time then event id: the same order whenever the segment is sent), unless the row
 * itself was already counted: the ledger of the process that spooled them should have called it a
 * duplicate, but a process that forgot the serve (its ledger full) must still not bill it twice.
 * The ids are string literals (quotes and backslashes escaped): the primary-key ranges must be
 * constants in the SQL, and the statement may carry the rows after it.
 */
export function billedOnceSelect(source: string, serves: ServeIdRanges): string {
  const inRanges = serves
    .ranges()
    .map(([low, high]) => (low === high ? `serve_id = ${stringLiteral(low)}` : `serve_id BETWEEN ${stringLiteral(low)} AND ${stringLiteral(high)}`))
    .join(' OR ');
  const columns = SPOOL_COLUMNS.map((column) => {
    if (column === 'type') return CHECKED_TYPE;
    if (column === 'ivt') return `if(duplicate, 'duplicate', ivt) AS ivt`;
    // A duplicate is invalid traffic: it has no billing ceiling's reason (unbilledReasons.ts) on top.
    if (column === 'unbilled') return `if(duplicate, '', unbilled) AS unbilled`;
    if (column === 'cost_nanos' || column === 'revenue_nanos') return `if(duplicate, 0, ${column}) AS ${column}`;
    return column;
  });
  return `SELECT ${columns.join(', ')}
    FROM (
      SELECT spooled.*,
             spooled.billable
               AND (arrayExists(counted_event -> counted_event != spooled.event_id, billed.counted_by)
                    OR (spooled.nth > 1 AND NOT has(billed.counted_by, spooled.event_id))) AS duplicate
      FROM (
        SELECT *,
               ivt = '' AND source IN ('pixel', 'click') AND type IN ('impression', 'click') AS billable,
               row_number() OVER (PARTITION BY serve_id, type, billable ORDER BY event_time, event_id) AS nth
        FROM ${source}
      ) AS spooled
      LEFT ANY JOIN (
        SELECT serve_id, type, groupArray(event_id) AS counted_by
        FROM serve_events_v1
        WHERE counted = 1 AND (${inRanges === '' ? '0' : inRanges})
        GROUP BY serve_id, type
      ) AS billed ON billed.serve_id = spooled.serve_id AND billed.type = spooled.type
    )`;
}

const columnRows = z.array(z.object({ name: z.string(), type: z.string() }));

/**
 * `event_id UUID, event_time DateTime64(3, 'UTC'), ...`: SPOOL_COLUMNS with events_v1's types, what
 * the engine's readers of spooled rows (file(), input()) need to be told when a select reads them.
 */
export async function spoolStructure(ch: ClickHouse): Promise<string> {
  const result = await ch.client.query({
    query: `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'events_v1'`,
    format: 'JSONEachRow',
  });
  const types = new Map(columnRows.parse(await result.json()).map((column) => [column.name, column.type]));
  return SPOOL_COLUMNS.map((column) => {
    const type = types.get(column);
    if (type === undefined) throw new Error(`events_v1 has no column ${column}: the ClickHouse migrations have not run`);
    return `${column} ${type}`;
  }).join(', ');
}

/** A ClickHouse string literal: backslash and single quote escaped. */
export function stringLiteral(value: string): string {
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}
