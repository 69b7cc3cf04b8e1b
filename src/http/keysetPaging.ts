import { z } from 'zod';
import { boundedInteger, queryParams } from './queryParams.js';

/**
 * Keyset paging for lists ordered by (created_at, id): `next_cursor` names the last row of a page,
 * and the next page starts strictly after it. A deep page then costs what the first does (an index
 * range read, not offset rows read and dropped), and a row deleted between two pages shifts
 * nothing. `offset` keeps the spec's meaning (rows skipped from the start) for callers that use it.
 */

/** The position after which a page starts: created_at to the microsecond (UTC) and the row's id. */
export interface KeysetPosition {
  time: string;
  id: string;
}

/**
 * created_at as exact UTC text for the cursor. A JS Date holds milliseconds and Postgres stores
 * microseconds: a cursor built from the Date would sit before the row it names and repeat it.
 */
export function sortTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.time, position.id]), 'utf8').toString('base64url');
}

const cursorText = /^[A-Za-z0-9_-]{1,512}$/;
const cursorMessage = 'not a cursor of this list: pass next_cursor back unchanged';

/** The `cursor` query parameter of a list whose rows have ids like `id`. */
export function cursorParam(id: z.ZodType<string>) {
  const position = z.tuple([z.iso.datetime({ precision: 6 }), id]);
  return z.string().transform((text, ctx): KeysetPosition => {
    const decoded = cursorText.test(text) ? parseJson(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
    const parsed = position.safeParse(decoded);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: cursorMessage });
      return z.NEVER;
    }
    return { time: parsed.data[0], id: parsed.data[1] };
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** limit, offset and cursor as every keyset-paged list takes them (the campaign list's bounds). */
export function pageQueryFields(id: z.ZodType<string>) {
  return {
    limit: boundedInteger(1, 1000).default(100),
    offset: boundedInteger(0, 1_000_000_000).default(0),
    cursor: cursorParam(id).optional(),
  };
}

/** A cursor already names where the page starts: an offset on top of it would mean two things. */
export function refineOneStart(page: { offset: number; cursor?: KeysetPosition }, ctx: z.RefinementCtx): void {
  if (page.cursor && page.offset > 0) {
    ctx.addIssue({ code: 'custom', path: ['offset'], message: 'send either cursor or offset, not both' });
  }
}

/** The query of a keyset list of rows with UUID ids (the operators' lists, an advertiser's members). */
export const uuidPageQuery = queryParams(pageQueryFields(z.uuid())).superRefine(refineOneStart);

export interface PageRequest {
  limit: number;
  offset: number;
  cursor?: KeysetPosition;
}

/**
 * A page's query parameters in the order the admin lists' SQL numbers them after its parent id:
 * cursor time, cursor id (both null without a cursor), LIMIT, OFFSET.
 */
export function pageParameters(page: PageRequest): [string | null, string | null, number, number] {
  return [page.cursor?.time ?? null, page.cursor?.id ?? null, page.limit, page.offset];
}

/** Rows as the list queries return them: the row, plus its sort time for the cursor. */
export type KeyedRow<Row> = Row & { sort_time: string; id: string };

/** The response of a keyset-paged list: `{data, pagination}` with the spec's fields and next_cursor. */
export function keysetPage<Row extends object>(rows: KeyedRow<Row>[], page: PageRequest) {
  const last = rows.at(-1);
  return {
    data: rows.map(({ sort_time: _sortTime, ...row }) => row),
    pagination: keysetPagination(rows.length, last ? { time: last.sort_time, id: last.id } : null, page),
  };
}

const pageStart = Buffer.from('{"data":');

/**
 * keysetPage for rows the engine already wrote as a JSON array (UTF-8 bytes): the same response
 * text, without parsing and serializing each row again, and one copy of the rows.
 */
export function keysetPageJson(rowsJson: Buffer, rows: number, last: KeysetPosition | null, page: PageRequest): Buffer {
  return Buffer.concat([pageStart, rowsJson, Buffer.from(`,"pagination":${JSON.stringify(keysetPagination(rows, last, page))}}`)]);
}

/** The page's pagination: total is the rows on this page; has_more, and a cursor after its last row, when the page is full. */
function keysetPagination(rows: number, last: KeysetPosition | null, page: PageRequest) {
  const hasMore = rows === page.limit;
  return {
    limit: page.limit,
    offset: page.offset,
    total: rows,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last) : null,
  };
}
