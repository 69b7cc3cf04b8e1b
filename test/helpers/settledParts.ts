import type { ClickHouse } from '../../src/store/clickhouse.js';

/**
 * Leaves nothing for ClickHouse's background to do: every unfinished mutation done and every
 * partition of every MergeTree table merged to one part. A crash test that kills a later process
 * at its n-th `rename` needs it: the migrations insert one part each (schema_migrations then has
 * 16), and a background merge of them, renamed into place whenever it ends, would otherwise take a
 * rename of the process under test before the insert's own parts (seen on CI: the conversion's
 * writer killed in that merge, before its spool line, so nothing was ever accepted).
 */
export async function settleParts(ch: ClickHouse): Promise<void> {
  await mutationsDone(ch);
  const unmerged = await (
    await ch.client.query({
      query: `SELECT DISTINCT table FROM system.parts WHERE database = currentDatabase() AND active GROUP BY table, partition HAVING count() > 1`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string }>();
  for (const { table } of unmerged) await ch.client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
  await mutationsDone(ch);
}

async function mutationsDone(ch: ClickHouse): Promise<void> {
  for (;;) {
    const [row] = await (await ch.client.query({ query: 'SELECT count() AS pending FROM system.mutations WHERE NOT is_done', format: 'JSONEachRow' })).json<{ pending: string | number }>();
    if (Number(row!.pending) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
