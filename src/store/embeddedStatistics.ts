import type { Postgres } from './postgres.js';

/**
 * Embedded PGlite runs no autovacuum, so nothing ever gathers the planner's statistics: every
 * query is planned on default guesses (a user holding 0.5% of the campaigns, say), and the
 * campaign list's keyset page became a bitmap scan of every campaign after the cursor, sorted,
 * instead of 100 rows read in order (7.5 ms instead of 0.7 ms at 10,000 campaigns). This gathers
 * them as autovacuum would on a server: ANALYZE for each table never analyzed, or whose size
 * changed by more than a tenth (and 8 pages) since its last ANALYZE. Size, not PGlite's row
 * counters: those reach pg_stat_user_tables late in single-user mode. A small sample (statistics
 * target 10: 3,000 rows) keeps each run short, since PGlite runs on the event loop and plans need
 * the rough sizes, not fine histograms.
 */
export async function analyzeChangedTables(db: Postgres): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     CROSS JOIN LATERAL (SELECT pg_relation_size(c.oid) / current_setting('block_size')::int AS pages) now
     WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
       AND (c.reltuples < 0 OR abs(now.pages - c.relpages) > greatest(8, c.relpages / 10))`,
  );
  if (rows.length === 0) return [];
  const names = rows.map((row) => row.name);
  await db.exec(`SET default_statistics_target = 10; ANALYZE ${names.join(', ')}; RESET default_statistics_target`);
  return names;
}
