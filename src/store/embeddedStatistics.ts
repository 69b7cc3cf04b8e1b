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
 *
 * The tables in indexOnlyScanTables are also vacuumed: without autovacuum nothing sets their
 * visibility map either, and an index-only scan then reads each entry's table row all the same.
 */
/**
 * Tables whose lists skip an offset on the index alone: the campaign list finds where a page at
 * offset 9,900 starts from 9,900 (created_at, id) index entries (campaignListSql): a page over
 * offsets 0..9,900 took 2.8 ms (p50, in process, 10,000 campaigns) against 4.2 ms when each
 * entry's row had to be read too. VACUUM sets the bits for the pages as they are;
 * a page written since reads its rows again until the next one.
 */
const indexOnlyScanTables = new Set(['public.campaigns']);

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
  // VACUUM cannot share a statement string (an implicit transaction) with anything else.
  const vacuumed = names.filter((name) => indexOnlyScanTables.has(name));
  if (vacuumed.length > 0) await db.exec(`VACUUM ${vacuumed.join(', ')}`);
  return names;
}
