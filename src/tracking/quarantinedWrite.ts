import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { lockDirectory } from '../store/directoryLock.js';
import { EventQuarantine } from './eventQuarantine.js';
import { keptWriteOf, SPOOL_COLUMNS, spooledRow, type InFlightWrite } from './eventSpool.js';

/** Quarantined writes this command will not complete as they stand: nothing was changed. */
export class QuarantinedWriteError extends Error {}

/**
 * What a run decided before its first write, and how far it got: a re-run after a crash follows the
 * plan instead of judging again, since the run's own writes change what it would find (a write
 * inserted whole is then in events_v1, and its views would be filled a second time).
 */
const journalSchema = z.object({
  /** Names the run's inserts into the views' targets (their deduplication tokens). */
  run: z.string(),
  writes: z.array(z.object({ name: z.string(), token: z.string(), inEvents: z.boolean() })),
  /** The views of events_v1 whose targets lacked the rows of the writes events_v1 held, and those filled so far. */
  views: z.array(z.string()),
  filled: z.array(z.string()),
});
type Journal = z.infer<typeof journalSchema>;

interface CompletedWrites {
  /** Each write: where its file is now (DATA_DIR/quarantine/completed/) and what was done with it. */
  writes: Array<{ file: string; token: string; events: number; done: 'inserted into events_v1 and its views' | 'its rows in events_v1 given to the views' | 'already completed' }>;
  /** The views of events_v1 whose targets this run filled, and those that held the rows already or have none to hold. */
  filled: string[];
  complete: string[];
}

/**
 * Makes the store whole, once, with writes the event pipeline quarantined (ClickHouse refused each
 * for its rows six times: clickhouseEventPipeline.ts, refusedAgain), after the operator fixed the
 * cause; `adsvc quarantine complete`. Sending such a file again through events_v1 counts it once
 * only while every table remembers its token (the last 10,000 inserts of each): past that it was
 * stored and billed twice (rev38 F2). So a write whose rows events_v1 holds never goes through
 * events_v1 again: each view of events_v1 that lacks them gets its own SELECT applied to those rows
 * of events_v1, into its target; a write events_v1 does not hold is inserted as the pipeline would.
 *
 * Which views lack them is judged from the data (judgeView), not assumed: the pipeline's tries of a
 * write (its token again each time) leave a part in the views ClickHouse reached before the one
 * that refuses, in an order of its own (a test's database saw daily_stats_v1 on either side).
 * Writes given together are judged together: the usual quarantine is many writes refused by one
 * view, which share the views' rows (a campaign's day) and the same missing views.
 */
export async function completeQuarantinedWrites(ch: ClickHouse, quarantineDirectory: string, names: string[]): Promise<CompletedWrites> {
  if (ch.cluster) throw new QuarantinedWriteError('completing quarantined writes on a cluster is not supported: its views are on each shard');
  const quarantine = new EventQuarantine(quarantineDirectory);
  const journals = path.dirname(quarantine.journalPath);
  mkdirSync(journals, { recursive: true });
  const release = lockDirectory(journals, { name: 'the completion of quarantined writes', harm: 'two runs would both fill the views' });
  try {
    return await complete(ch, quarantine, [...new Set(names)]);
  } finally {
    release();
    // The directory only holds a run's plan and lock: a run that leaves no plan leaves no directory.
    // Not emptied by force: a plan still there (a run stopped midway) is what the next run follows.
    try {
      rmdirSync(journals);
    } catch {
      // Not empty (the plan), or gone: either way nothing to do, and the run's own outcome stands.
    }
  }
}

async function complete(ch: ClickHouse, quarantine: EventQuarantine, names: string[]): Promise<CompletedWrites> {
  let journal = readJournal(quarantine.journalPath);
  if (journal !== undefined) {
    const planned = journal.writes.map((write) => write.name);
    if (planned.length !== names.length || planned.some((name) => !names.includes(name))) {
      throw new QuarantinedWriteError(`an earlier run did not finish: run it again with the same files (${planned.join(' ')})`);
    }
  }
  const writes = new Map<string, InFlightWrite>();
  const done: CompletedWrites['writes'] = [];
  for (const name of names) {
    const file = quarantine.held(name);
    const completed = quarantine.completedPath(name);
    if (file === undefined && existsSync(completed)) {
      const write = keptWriteOf(name, readFileSync(completed, 'utf8'));
      done.push({ file: completed, token: write?.token ?? '', events: write?.events ?? 0, done: 'already completed' });
      continue;
    }
    if (file === undefined) throw new QuarantinedWriteError(`no quarantined write ${name} in ${quarantine.directory}`);
    const write = keptWriteOf(name, readFileSync(file, 'utf8'));
    if (write === undefined) {
      throw new QuarantinedWriteError(`${name} is not a quarantined write (its last line is no token): spool lines ClickHouse cannot parse are repaired and imported instead (docs/failure-modes.md)`);
    }
    writes.set(name, write);
  }
  if (writes.size === 0) {
    rmSync(quarantine.journalPath, { force: true });
    return { writes: done, filled: [], complete: [] };
  }

  let whole: string[] = [];
  if (journal === undefined) {
    const planned = await plan(ch, [...writes.values()]);
    writeJournal(quarantine.journalPath, planned.journal);
    [journal, whole] = [planned.journal, planned.complete];
  }
  const run = journal;
  const inEvents = (inEvents: boolean) => run.writes.filter((write) => write.inEvents === inEvents && writes.has(write.name)).map((write) => writes.get(write.name)!);

  for (const write of inEvents(false)) {
    // Held by now: this run inserted it before a crash.
    if ((await heldCopies(ch, rowsOf([write]))).size > 0) continue;
    await ch.client.command({
      query: `INSERT INTO events_v1 (${SPOOL_COLUMNS.join(', ')}) FORMAT JSONCompactEachRow\n${write.body}`,
      clickhouse_settings: {
        insert_deduplication_token: write.token,
        deduplicate_blocks_in_dependent_materialized_views: 1,
        input_format_json_compact_allow_variable_number_of_columns: 1,
      },
    });
  }
  const held = rowsOf(inEvents(true));
  const filled: string[] = [];
  const views = run.views.length > run.filled.length ? await viewGraph(ch) : new Map<string, View>();
  for (const view of run.views.filter((name) => !run.filled.includes(name))) {
    await fillView(ch, views, view, `quarantine-completion:${run.run}:${view}`, held);
    run.filled.push(view);
    filled.push(view);
    writeJournal(quarantine.journalPath, run);
  }
  for (const write of writes.values()) {
    const inserted = !run.writes.find((planned) => planned.name === write.name)!.inEvents;
    done.push({ file: quarantine.complete(write.name), token: write.token, events: write.events, done: inserted ? 'inserted into events_v1 and its views' : 'its rows in events_v1 given to the views' });
  }
  rmSync(quarantine.journalPath, { force: true });
  return { writes: done, filled, complete: whole };
}

interface WriteRows {
  ids: string[];
  campaigns: string[];
}

function rowsOf(writes: InFlightWrite[]): WriteRows {
  const ids = new Set<string>();
  const campaigns = new Set<string>();
  for (const write of writes) {
    for (const line of write.body.split('\n')) {
      const row = spooledRow(line);
      if (row === undefined) continue;
      ids.add(String(row[EVENT_ID]));
      campaigns.add(String(row[CAMPAIGN_ID]));
    }
  }
  return { ids: [...ids], campaigns: [...campaigns] };
}

const EVENT_ID = SPOOL_COLUMNS.indexOf('event_id');
const CAMPAIGN_ID = SPOOL_COLUMNS.indexOf('campaign_id');

/** The rows events_v1 holds of these, by event id, with how many times each is there. */
async function heldCopies(ch: ClickHouse, rows: WriteRows): Promise<Map<string, number>> {
  const result = await ch.client.query({
    query: `SELECT toString(event_id) AS id, toUInt64(count()) AS copies FROM events_v1
            WHERE campaign_id IN {campaigns:Array(UUID)} AND event_id IN {ids:Array(UUID)} GROUP BY event_id`,
    query_params: { ids: rows.ids, campaigns: rows.campaigns },
    format: 'JSONEachRow',
  });
  const held = z.array(z.object({ id: z.string(), copies: z.coerce.number() })).parse(await result.json());
  return new Map(held.map((row) => [row.id, row.copies]));
}

/**
 * events_v1 holds each write's rows (all of them: one insert of one month) or none. None: the write
 * is inserted as it is. Held: each view is judged, those of events_v1 and those of their targets
 * (a chain: daily_stats_v1 feeds campaign_daily_stats_v1 and line_item_spend_v1), and every one
 * must be complete or lack all of the held writes' rows; anything else stops the run before it
 * writes. A lacking view is filled, unless the view feeding its source lacks them too: the fill of
 * that one's target reaches it. So a view that holds them must not read from a target being filled.
 */
async function plan(ch: ClickHouse, writes: InFlightWrite[]): Promise<{ journal: Journal; complete: string[] }> {
  const planned: Journal['writes'] = [];
  for (const write of writes) {
    const rows = rowsOf([write]);
    const held = await heldCopies(ch, rows);
    if ([...held.values()].some((copies) => copies > 1)) {
      throw new QuarantinedWriteError(`events_v1 already holds events of ${write.name} (token ${write.token}) more than once: nothing done (docs/failure-modes.md)`);
    }
    if (held.size > 0 && held.size < rows.ids.length) {
      throw new QuarantinedWriteError(`events_v1 holds ${held.size} of the ${rows.ids.length} events of ${write.name}, which one insert cannot leave: nothing done`);
    }
    planned.push({ name: write.name, token: write.token, inEvents: held.size > 0 });
  }
  const held = rowsOf(writes.filter((_write, at) => planned[at]!.inEvents));
  const verdicts = new Map<string, Verdict>();
  const views = held.ids.length > 0 ? await viewGraph(ch) : new Map<string, View>();
  for (const view of views.values()) verdicts.set(view.name, await judgeView(ch, views, view, held));
  const lacking = (name: string | undefined) => name !== undefined && verdicts.get(name) === 'lacking';
  const fill = [...views.values()].filter((view) => lacking(view.name) && !lacking(view.feeder)).map((view) => view.name);
  const unclear = [...views.values()].filter((view) => verdicts.get(view.name) === 'unclear' || (lacking(view.feeder) && !lacking(view.name))).map((view) => view.name);
  if (unclear.length > 0) {
    throw new QuarantinedWriteError(
      `the targets of ${unclear.join(', ')} differ from what their views make of events_v1, at the keys these writes touch (a campaign's day, a serve), ` +
        `by more than these writes' rows: nothing done. If they hold some of these writes and not others, give the writes one at a time; ` +
        `if other quarantined writes of the same campaign and day are missing from them too, give them all together (DATA_DIR/quarantine/*.failed-write); ` +
        `if a view was not built from all of events_v1 (created after events existed and never backfilled, or changed since), no grouping of the writes helps: ` +
        `drop that view, complete, then create it again (docs/failure-modes.md)`,
    );
  }
  const complete = [...verdicts].filter(([, verdict]) => verdict === 'complete').map(([name]) => name);
  return { journal: { run: randomUUID(), writes: planned, views: fill, filled: [] }, complete };
}

type Verdict = 'complete' | 'lacking' | 'unclear';

interface View {
  name: string;
  /** The table it reads (unqualified), and the one view writing to that table when it is not events_v1. */
  source: string;
  feeder?: string;
  select: string;
  target: string;
  columns: Array<{ name: string; type: string }>;
  /** The target's sorting key and engine. */
  key: string[];
  engine: string;
}

const graphRow = z.object({
  name: z.string(),
  select: z.string(),
  ddl: z.string(),
  source: z.string(),
  columns: z.array(z.tuple([z.string(), z.string()])),
  key: z.string(),
  engine: z.string(),
});

/**
 * The views fed, directly or through other views' targets, by events_v1, as ClickHouse keeps them
 * (system.tables.as_select: the one home of each SELECT stays its migration), in the order of the chains.
 */
async function viewGraph(ch: ClickHouse): Promise<Map<string, View>> {
  const result = await ch.client.query({
    query: `SELECT v.name AS name, v.as_select AS select, v.create_table_query AS ddl, s.name AS source,
              (SELECT groupArray((name, type)) FROM (SELECT name, type, table FROM system.columns WHERE database = currentDatabase() ORDER BY position) WHERE table = v.name) AS columns,
              t.sorting_key AS key, t.engine AS engine
            FROM (SELECT name, arrayJoin(dependencies_table) AS view FROM system.tables WHERE database = currentDatabase()) AS s
            JOIN system.tables AS v ON v.database = currentDatabase() AND v.name = s.view
            LEFT JOIN system.tables AS t ON t.database = currentDatabase() AND t.name = extract(v.create_table_query, '^CREATE MATERIALIZED VIEW \\S+ TO (?:\\S+\\.)?\`?(\\w+)\`?')
            ORDER BY name`,
    format: 'JSONEachRow',
  });
  const rows = z.array(graphRow).parse(await result.json());
  const all = new Map<string, View>();
  for (const row of rows) {
    const target = /^CREATE MATERIALIZED VIEW \S+ TO (\S+)/.exec(row.ddl)?.[1];
    if (target === undefined) throw new QuarantinedWriteError(`the view ${row.name} writes to no table of its own (TO): complete it by hand`);
    all.set(row.name, {
      name: row.name,
      source: row.source,
      select: row.select,
      target,
      columns: row.columns.map(([name, type]) => ({ name, type })),
      key: row.key.split(',').map((column) => column.trim()),
      engine: row.engine,
    });
  }
  const targetTable = (view: View) => view.target.replaceAll('`', '').split('.').pop();
  const reached = new Map<string, View>();
  const sources = ['events_v1'];
  for (let source = sources.shift(); source !== undefined; source = sources.shift()) {
    const feeders = [...all.values()].filter((view) => targetTable(view) === source);
    for (const view of all.values()) {
      if (view.source !== source || reached.has(view.name)) continue;
      // A table two views write to: what it holds of the rows is not one view's SELECT.
      if (source !== 'events_v1' && feeders.length !== 1) throw new QuarantinedWriteError(`the view ${view.name} reads ${source}, which several views write: complete it by hand`);
      reached.set(view.name, source === 'events_v1' ? view : { ...view, feeder: feeders[0]!.name });
      sources.push(targetTable(view)!);
    }
  }
  return reached;
}

/** The view's SELECT read from the given rows of events_v1 (through the views feeding its source) instead of whole tables. */
function selectOf(views: Map<string, View>, view: View, rows: 'written' | 'all'): string {
  const feeder = view.feeder === undefined ? undefined : views.get(view.feeder)!;
  const source = feeder !== undefined ? `(${selectOf(views, feeder, rows)})` : rows === 'written' ? WRITTEN_ROWS : 'events_v1';
  let found = 0;
  const select = view.select.replace(tableName(view.source), () => {
    found += 1;
    return source;
  });
  if (found === 0) throw new QuarantinedWriteError(`the view ${view.name} does not name ${view.source} as ClickHouse keeps it: complete it by hand`);
  return select;
}

/** A table as a view's SELECT names it (ClickHouse qualifies it with the database), not a column or another name containing it. */
function tableName(table: string): RegExp {
  return new RegExp(`(?<![\\w\`.])(?:\`?\\w+\`?\\.)?\`?${table}\`?(?![\\w\`.])`, 'g');
}

const WRITTEN_ROWS = '(SELECT * FROM events_v1 WHERE campaign_id IN {written_campaigns:Array(UUID)} AND event_id IN {written_ids:Array(UUID)})';
const rowParams = (rows: WriteRows) => ({ written_campaigns: rows.campaigns, written_ids: rows.ids });

/**
 * Whether the view's target holds what the view makes of the rows, at each key of the target
 * (its sorting key: a campaign's day, a serve) those rows touch, by the sums of the view's numeric
 * columns (and the row count where the target keeps rows as written): equal to what the view makes
 * of every row of events_v1 at those keys, 'complete'; short of exactly the rows' share, 'lacking';
 * else 'unclear'. A view that makes nothing of the rows (a conversion, for an impressions-only view)
 * is complete, and so is one into a Null table (it holds nothing; the views reading it are judged).
 * States (reach's uniq) are not compared: a repeated user counts once in them anyway.
 */
async function judgeView(ch: ClickHouse, views: Map<string, View>, view: View, rows: WriteRows): Promise<Verdict> {
  if (view.engine === 'Null') return 'complete';
  const share = await ch.client.query({ query: `SELECT toUInt64(count()) AS rows FROM (${selectOf(views, view, 'written')})`, query_params: rowParams(rows), format: 'JSONEachRow' });
  if (z.array(z.object({ rows: z.coerce.number() })).parse(await share.json())[0]?.rows === 0) return 'complete';
  const key = view.key.filter((column) => view.columns.some((candidate) => candidate.name === column));
  if (key.length !== view.key.length || key.length === 0) return 'unclear';
  const measures = view.columns.filter((column) => !key.includes(column.name) && NUMERIC.test(column.type)).map((column) => `sum(\`${column.name}\`)`);
  if (/^(Replicated)?MergeTree$/.test(view.engine)) measures.push('count()');
  if (measures.length === 0) return 'unclear';
  const keyList = key.map((column) => `\`${column}\``).join(', ');
  const figures = `tuple(${measures.join(', ')}) AS figures`;
  const result = await ch.client.query({
    query: `WITH
              share AS (SELECT ${keyList}, ${figures} FROM (${selectOf(views, view, 'written')}) GROUP BY ${keyList}),
              truth AS (SELECT ${keyList}, ${figures} FROM (${selectOf(views, view, 'all')}) WHERE (${keyList}) IN (SELECT ${keyList} FROM share) GROUP BY ${keyList}),
              held AS (SELECT ${keyList}, ${figures} FROM ${view.target} WHERE (${keyList}) IN (SELECT ${keyList} FROM share) GROUP BY ${keyList})
            SELECT toUInt64(count()) AS keys,
                   toUInt64(countIf(held.figures = truth.figures)) AS complete,
                   toUInt64(countIf(tuplePlus(held.figures, share.figures) = truth.figures)) AS lacking
            FROM share LEFT JOIN truth USING (${keyList}) LEFT JOIN held USING (${keyList})
            SETTINGS join_use_nulls = 0`,
    query_params: rowParams(rows),
    format: 'JSONEachRow',
  });
  const [counts] = z.array(z.object({ keys: z.coerce.number(), complete: z.coerce.number(), lacking: z.coerce.number() })).parse(await result.json());
  if (counts === undefined || counts.complete === counts.keys) return 'complete';
  return counts.lacking === counts.keys ? 'lacking' : 'unclear';
}

const NUMERIC = /^(U?Int\d+|Float\d+|Decimal.*|SimpleAggregateFunction\(sum, .*\))$/;

/**
 * Inserts into the view's target what the view itself would have written for the rows (the views
 * reading that target take their share from this insert, as from any). Under a token of the run's
 * own, so a crash between this insert and the journal's record of it repeats the insert while the
 * target remembers it, and it counts once.
 */
async function fillView(ch: ClickHouse, views: Map<string, View>, name: string, token: string, rows: WriteRows): Promise<void> {
  const view = views.get(name);
  // Dropped since the plan (by the operator, as the fix): nothing of it to fill.
  if (view === undefined) return;
  await ch.client.command({
    query: `INSERT INTO ${view.target} (${view.columns.map((column) => `\`${column.name}\``).join(', ')}) ${selectOf(views, view, 'written')}`,
    query_params: rowParams(rows),
    clickhouse_settings: { insert_deduplication_token: token, deduplicate_blocks_in_dependent_materialized_views: 1 },
  });
}

function readJournal(file: string): Journal | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return journalSchema.parse(JSON.parse(text));
}

/** Whole or not at all (a new file renamed over the old one), and on disk before the next write to ClickHouse. */
function writeJournal(file: string, journal: Journal): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const next = `${file}.next`;
  const fd = openSync(next, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(journal));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(next, file);
}
