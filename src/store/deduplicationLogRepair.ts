import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * ClickHouse's non-replicated MergeTree commits an inserted part in two steps under the table's
 * parts lock (MergeTreeSink::commitPart): it appends the block's id (from the insert's
 * insert_deduplication_token) to the table's deduplication log, written through to the kernel at
 * once, and only then renames the part from tmp_insert_* into place. Embedded chdb runs inside our
 * process, so a kill -9 between the two leaves an id whose part never existed: the next start
 * deletes the temporary part, and the spool's replay of that segment, sent with the same token, is
 * dropped as a duplicate in that table. Acknowledged events were lost that way (a whole segment
 * missing from events_v1), or a view's share of them (a rollup short of its events).
 *
 * Before the engine opens its directory, this finds such an id and appends, in a log of its own,
 * the DROP record ClickHouse itself writes for the ids of a dropped part. The replay then writes
 * the block again into the tables that lack it, and only into those (the others still hold its id
 * with their part). Only the last record of a table's log can be one: the crash happens while the
 * parts lock is held, so no later part of that table is committed, and every start repairs before
 * any insert (whose block number would reuse the lost part's). One insert block per part: all of
 * the part's ids are the trailing records naming it.
 */
export function forgetBlocksWithoutParts(clickhouseDirectory: string): ForgottenBlocks[] {
  const store = path.join(clickhouseDirectory, 'store');
  if (!existsSync(store)) return [];
  const repaired: ForgottenBlocks[] = [];
  for (const prefix of readdirSync(store)) {
    for (const table of readdirSync(path.join(store, prefix))) {
      const tableDirectory = path.join(store, prefix, table);
      const forgotten = forgetInTable(tableDirectory);
      if (forgotten !== undefined) repaired.push(forgotten);
    }
  }
  return repaired;
}

export interface ForgottenBlocks {
  /** The table's directory in the engine's store. */
  table: string;
  /** The part that was never committed. */
  part: string;
  blockIds: string[];
}

const LOG_NAME = /^deduplication_log_(\d+)\.txt$/;
/** `<partition id>_<min block>_<max block>_<level>[_<mutation>]`: partition ids hold no underscore. */
const PART_NAME = /^([^_]+)_(\d+)_(\d+)_(\d+)(?:_(\d+))?$/;
const RECORD = /^([12])\t([^\t\n]+)\t([^\t\n]+)$/;
const ADD = '1';
const DROP = '2';
/** More than the trailing records of one part (about 70 bytes each) in any log seen. */
const TAIL_BYTES = 64 * 1024;

function forgetInTable(tableDirectory: string): ForgottenBlocks | undefined {
  const logsDirectory = path.join(tableDirectory, 'deduplication_logs');
  if (!existsSync(logsDirectory)) return undefined;
  const logs = readdirSync(logsDirectory)
    .map((name) => LOG_NAME.exec(name))
    .filter((match) => match !== null)
    .map((match) => ({ name: match[0], number: Number(match[1]) }))
    .sort((a, b) => b.number - a.number);
  if (logs.length === 0) return undefined;
  // The newest log can be empty (just rotated): the last record is in the newest log that has one.
  for (const log of logs) {
    const records = lastRecords(path.join(logsDirectory, log.name));
    if (records === undefined) return undefined;
    if (records.length === 0) continue;
    const last = records.at(-1)!;
    if (last.operation !== ADD || isCommitted(tableDirectory, last.part)) return undefined;
    const blockIds: string[] = [];
    for (let at = records.length - 1; at >= 0 && records[at]!.operation === ADD && records[at]!.part === last.part; at--) blockIds.push(records[at]!.blockId);
    // A log of its own, after every other: the engine reads logs in number order, so the DROP comes
    // after the ADD, and a torn tail in the engine's own log cannot swallow it.
    const drops = blockIds.map((blockId) => `${DROP}\t${last.part}\t${blockId}\n`).join('');
    writeFileSync(path.join(logsDirectory, `deduplication_log_${logs[0]!.number + 1}.txt`), drops, { flag: 'wx', mode: 0o644 });
    return { table: tableDirectory, part: last.part, blockIds };
  }
  return undefined;
}

interface LogRecord {
  operation: string;
  part: string;
  blockId: string;
}

/**
 * The records at the end of a log; undefined when its tail is not whole records (a kill -9 cannot
 * cut the engine's one-line writes, so that is something else, and nothing is touched).
 */
function lastRecords(file: string): LogRecord[] | undefined {
  const fd = openSync(file, 'r');
  let text: string;
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const bytes = Buffer.alloc(length);
    readSync(fd, bytes, 0, length, size - length);
    text = bytes.toString('utf8');
    // Started mid-file: the first line may be cut.
    if (length < size) text = text.slice(text.indexOf('\n') + 1);
  } finally {
    closeSync(fd);
  }
  if (text === '') return [];
  if (!text.endsWith('\n')) return undefined;
  const records: LogRecord[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const match = RECORD.exec(line);
    if (match === null) return undefined;
    records.push({ operation: match[1]!, part: match[2]!, blockId: match[3]! });
  }
  return records;
}

/** Whether a part directory holds the part's blocks: the part itself, or one merged from it. */
function isCommitted(tableDirectory: string, partName: string): boolean {
  const part = PART_NAME.exec(partName);
  if (part === null) return true;
  const [, partition, min, max] = part;
  for (const name of readdirSync(tableDirectory)) {
    const other = PART_NAME.exec(name);
    if (other !== null && other[1] === partition && Number(other[2]) <= Number(min) && Number(other[3]) >= Number(max)) return true;
  }
  return false;
}
