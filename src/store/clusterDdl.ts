/**
 * The ClickHouse migrations as cluster DDL (CLICKHOUSE_CLUSTER). The files in clickhouse/ are written
 * for one server; on a cluster each statement becomes what the rules below say, and a statement no
 * rule covers stops the migration with a ClusterDdlError naming it (never a silent pass-through).
 *
 * - `CREATE TABLE [IF NOT EXISTS] t (...) ENGINE = XMergeTree[(args)] ...` becomes the shard's table
 *   `t_local ... ON CLUSTER c` with `ENGINE = ReplicatedXMergeTree('/clickhouse/tables/{shard}/{database}/{table}',
 *   '{replica}'[, args])` and `replicated_deduplication_window` (and its seconds) for
 *   `non_replicated_deduplication_window` (the same window), followed by `CREATE TABLE t ON CLUSTER c AS t_local ENGINE = Distributed(c, db,
 *   t_local, <sharding key>)` under the name the app uses. `ENGINE = Null` stays Null (it keeps nothing
 *   to replicate). Any other engine is an error.
 * - The sharding key is `cityHash64(campaign_id)` for every table with a campaign_id column, so a
 *   campaign's events and every rollup row of that campaign sit on one shard. A table without one must
 *   be named in SHARDING_KEYS with its key.
 * - `CREATE MATERIALIZED VIEW [IF NOT EXISTS] v TO t AS SELECT ... FROM s ...` becomes `... v ON CLUSTER c
 *   TO t_local AS SELECT ... FROM s_local ...`: every name after FROM, JOIN (not ARRAY JOIN) or TO
 *   becomes the shard's own table, so a view fires on the shard that received the rows and writes
 *   next to them. A name there that no earlier migration created (`extract(DAY FROM d)` too) is an error.
 * - `DROP VIEW [IF EXISTS] v` (a view replaced by a later one) becomes `DROP VIEW [IF EXISTS] v ON CLUSTER c`.
 * - `ALTER TABLE t <column actions>` runs on t_local and then on t (a Distributed table has its own
 *   column list); `ALTER TABLE t <other actions>` (indexes, TTL, settings) on t_local only. On
 *   t_local it waits for every replica (alter_sync = 2).
 * - `INSERT INTO t SELECT ... FROM s` (a backfill) stays as it is: it reads every shard through the
 *   Distributed tables and writes through t's sharding key, like the app's own inserts.
 */

export interface ClusterTarget {
  /** The cluster's name in the servers' remote_servers configuration. */
  name: string;
  /** The database every table lives in (CLICKHOUSE_DATABASE). */
  database: string;
}

export class ClusterDdlError extends Error {}

/** The suffix of a shard's own table: events_v1_local holds the shard's rows of events_v1. */
const LOCAL_SUFFIX = '_local';

const CAMPAIGN_SHARDING_KEY = 'cityHash64(campaign_id)';

/**
 * Tables without a campaign_id column, and how their direct inserts are sharded. Rows that views
 * write still land on the shard of the campaign whose events made them, so every read of these
 * tables goes to all shards through the Distributed table (the client never skips shards: see
 * openClickHouse) and never relies on where a row is.
 */
const SHARDING_KEYS: Readonly<Record<string, string>> = {
  line_item_spend_v1: 'cityHash64(line_item_id)',
  frequency_hours_v1: 'cityHash64(line_item_id)',
  placement_daily_stats_v1: 'cityHash64(placement_id)',
  placement_serve_counts_v1: 'cityHash64(placement_id)',
  // clickhouse/0006 (issue 16x): looked up by serve id through the Distributed table.
  serve_events_v1: 'cityHash64(serve_id)',
};

const REPLICATED_PATH = "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'";
const MERGE_TREE_ENGINES = new Set(['MergeTree', 'SummingMergeTree', 'AggregatingMergeTree', 'ReplacingMergeTree', 'CollapsingMergeTree', 'VersionedCollapsingMergeTree']);
/**
 * A replicated table also forgets an insert's deduplication token after this many seconds (3600 by
 * default in recent releases), which a non-replicated table does not: a spool segment replayed
 * later than that after a crash would count twice. A week, so the window of inserts is what limits it.
 */
const DEDUPLICATION_WINDOW_SECONDS = 'replicated_deduplication_window_seconds = 604800';
const DISTRIBUTED_COLUMN_ACTION = /^(ADD|DROP|MODIFY|RENAME|COMMENT)\s+COLUMN\b/i;

/** The names of the tables created so far. */
export type ClusterTables = Set<string>;

/**
 * Every statement of one migration, in order, as cluster DDL. `tables` carries the tables of the
 * earlier migrations (pass the same set through all of them, in order, applied or not).
 */
export function clusterStatements(statements: string[], target: ClusterTarget, tables: ClusterTables): string[] {
  return statements.flatMap((statement) => clusterStatement(statement.trim(), target, tables));
}

function clusterStatement(statement: string, target: ClusterTarget, tables: ClusterTables): string[] {
  const onCluster = `ON CLUSTER ${target.name}`;
  let match = /^CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\(/i.exec(statement);
  if (match) {
    const [head, ifNotExists = '', table] = match as unknown as [string, string | undefined, string];
    const columnsEnd = closingParenthesis(statement, head.length - 1);
    const columns = topLevelParts(statement.slice(head.length, columnsEnd)).map((part) => part.trim().split(/\s+/)[0]);
    const shardingKey = columns.includes('campaign_id') ? CAMPAIGN_SHARDING_KEY : SHARDING_KEYS[table];
    if (shardingKey === undefined) {
      throw new ClusterDdlError(`table ${table} has no campaign_id column: give its sharding key in SHARDING_KEYS (src/store/clusterDdl.ts)`);
    }
    tables.add(table);
    const local = `${table}${LOCAL_SUFFIX}`;
    const rest = replicatedEngine(statement.slice(columnsEnd + 1), table);
    return [
      `CREATE TABLE ${ifNotExists}${local} ${onCluster} ${statement.slice(head.length - 1, columnsEnd + 1)}${rest}`,
      `CREATE TABLE ${ifNotExists}${table} ${onCluster} AS ${local}\n` +
        `ENGINE = Distributed('${target.name}', '${target.database}', '${local}', ${shardingKey})`,
    ];
  }
  match = /^CREATE\s+MATERIALIZED\s+VIEW\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s+(TO\s[\s\S]*)$/i.exec(statement);
  if (match) {
    const [, ifNotExists = '', view, body] = match as unknown as [string, string | undefined, string, string];
    return [`CREATE MATERIALIZED VIEW ${ifNotExists}${view} ${onCluster} ${localTables(body, tables)}`];
  }
  match = /^DROP\s+VIEW\s+(IF\s+EXISTS\s+)?(\w+)$/i.exec(statement);
  if (match) {
    const [, ifExists = '', view] = match as unknown as [string, string | undefined, string];
    return [`DROP VIEW ${ifExists}${view} ${onCluster}`];
  }
  match = /^ALTER\s+TABLE\s+(\w+)\s+/i.exec(statement);
  if (match) {
    const [head, table] = match as unknown as [string, string];
    knownTable(table, tables, statement);
    const actions = statement.slice(head.length);
    const columnActions = topLevelParts(actions).map((action) => DISTRIBUTED_COLUMN_ACTION.test(action.trim()));
    if (columnActions.some(Boolean) !== columnActions.every(Boolean)) {
      throw new ClusterDdlError(`split column actions from other actions into two ALTERs: ${firstLine(statement)}`);
    }
    // alter_sync = 2: every replica has the change before the next statement runs, so a view
    // created next never writes to a replica that does not have the new column yet.
    const altered = [`ALTER TABLE ${table}${LOCAL_SUFFIX} ${onCluster} ${actions} SETTINGS alter_sync = 2`];
    if (columnActions.every(Boolean)) altered.push(`ALTER TABLE ${table} ${onCluster} ${actions}`);
    return altered;
  }
  match = /^INSERT\s+INTO\s+(\w+)\s/i.exec(statement);
  if (match) {
    knownTable(match[1]!, tables, statement);
    return [statement];
  }
  throw new ClusterDdlError(`no cluster rule for this statement (see src/store/clusterDdl.ts): ${firstLine(statement)}`);
}

/** What follows a CREATE TABLE's column list, with a Replicated engine and the replicated deduplication window. */
function replicatedEngine(rest: string, table: string): string {
  const engine = /\bENGINE\s*=\s*(\w+)\s*/i.exec(rest);
  if (!engine) throw new ClusterDdlError(`table ${table} names no ENGINE`);
  const name = engine[1]!;
  if (name === 'Null') return rest;
  if (!MERGE_TREE_ENGINES.has(name)) throw new ClusterDdlError(`table ${table}: no replicated form of ENGINE = ${name}`);
  const argsStart = engine.index + engine[0].length;
  const argsEnd = rest[argsStart] === '(' ? closingParenthesis(rest, argsStart) : argsStart - 1;
  const args = rest.slice(argsStart + 1, argsEnd).trim();
  const replicated = `ENGINE = Replicated${name}(${REPLICATED_PATH}${args ? `, ${args}` : ''})`;
  const withEngine = `${rest.slice(0, engine.index)}${replicated}\n${rest.slice(argsEnd + 1).trimStart()}`;
  return withEngine.replace(/\bnon_replicated_deduplication_window(\s*=\s*\d+)/g, `replicated_deduplication_window$1, ${DEDUPLICATION_WINDOW_SECONDS}`);
}

/** The statement with every known table after FROM, JOIN (not ARRAY JOIN) or TO replaced by the shard's own table. */
function localTables(sql: string, tables: ClusterTables): string {
  return sql.replace(/\b(ARRAY\s+)?(FROM|JOIN|TO)(\s+)(\w+)\b/gi, (whole: string, array: string | undefined, keyword: string, space: string, name: string) => {
    if (array !== undefined) return whole; // ARRAY JOIN unfolds a column, not a table
    if (tables.has(name)) return `${keyword}${space}${name}${LOCAL_SUFFIX}`;
    throw new ClusterDdlError(`a view reads or writes ${name}, which no earlier migration created: ${firstLine(sql)}`);
  });
}

function knownTable(table: string, tables: ClusterTables, statement: string): void {
  if (!tables.has(table)) throw new ClusterDdlError(`${table} was not created by an earlier migration: ${firstLine(statement)}`);
}

/** The index of the parenthesis closing the one at `open`. */
function closingParenthesis(sql: string, open: number): number {
  let depth = 0;
  for (let index = open; index < sql.length; index += 1) {
    if (sql[index] === '(') depth += 1;
    if (sql[index] === ')' && --depth === 0) return index;
  }
  throw new ClusterDdlError(`unbalanced parentheses: ${firstLine(sql)}`);
}

/** Splits at commas outside parentheses and quotes (columns of a table, actions of an ALTER). */
function topLevelParts(sql: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let index = 0; index < sql.length; index += 1) {
    const char = sql[index];
    if (char === "'") quoted = !quoted;
    if (quoted) continue;
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(sql.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(sql.slice(start));
  return parts.filter((part) => part.trim() !== '');
}

function firstLine(sql: string): string {
  return sql.split('\n')[0]!.slice(0, 120);
}
