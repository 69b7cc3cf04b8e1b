import { SPOOL_COLUMNS } from './eventSpool.js';
import { holdsLoneSurrogate } from '../loneSurrogate.js';

/** A segment's lines sorted by whether ClickHouse can parse them, as far as Node can tell. */
export interface SortedSpoolLines {
  parsable: string;
  parsableCount: number;
  unparsable: string;
  unparsableCount: number;
  /** Why the first unparsable line is one, for the log. */
  firstReason: string | undefined;
}

/**
 * Sorts the lines of a body ClickHouse refused to parse: a line that is not a JSON array, or one of
 * whose texts holds a lone surrogate (which JSON spells `\ud800` and ClickHouse refuses to read),
 * can never be a row. Finding them here costs one parse a line; finding them by halving the insert
 * cost an insert for every run of good lines between two bad ones, each under a token of its own,
 * without bound (try41 F5: a flood of forged pixels held the pipeline for minutes; F7: a kill -9 in
 * the middle replayed halves whose tokens ClickHouse had forgotten, billing their events twice).
 * Only what certainly fails there: a line set aside is never billed, while one passed here that
 * ClickHouse still refuses (an unknown event type, a time it cannot read) is found by halving. So
 * more values than SPOOL_COLUMNS (a newer release's segment after a rollback: the insert's
 * input_format_json_compact_allow_variable_number_of_columns ignores them), a null (read as the
 * column's default), or a value of another JSON type are left to ClickHouse (rev41 R10).
 */
export function sortSpoolLines(body: string): SortedSpoolLines {
  const sorted: SortedSpoolLines = { parsable: '', parsableCount: 0, unparsable: '', unparsableCount: 0, firstReason: undefined };
  for (let start = 0, end = body.indexOf('\n'); end !== -1; start = end + 1, end = body.indexOf('\n', start)) {
    const line = body.slice(start, end + 1);
    const reason = whyUnparsable(line.slice(0, -1));
    if (reason === undefined) {
      sorted.parsable += line;
      sorted.parsableCount += 1;
    } else {
      sorted.unparsable += line;
      sorted.unparsableCount += 1;
      sorted.firstReason ??= reason;
    }
  }
  return sorted;
}

function whyUnparsable(line: string): string | undefined {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return 'not JSON (a torn or edited line)';
  }
  if (!Array.isArray(row)) return 'not a row of the spool';
  for (const [index, value] of row.entries()) {
    if (typeof value === 'string' && holdsLoneSurrogate(value)) return `${SPOOL_COLUMNS[index] ?? `value ${index + 1}`} holds a lone surrogate`;
  }
  return undefined;
}
