import { onTestFinished } from 'vitest';
import type { ClickHouse } from '../../src/store/clickhouse.js';

export interface RefusingViewOptions {
  /** Begins the names of the view (`LABEL_mv_ID`) and of its target (`LABEL_sink_ID`), ID the first campaign's. */
  label: string;
  /** The campaigns whose rows it refuses, every time an insert brings them. */
  campaigns: string[];
  /**
   * The error code of the refusal: throwIf's own by default (a refusal of the rows, which
   * quarantines the write after six tries); 241 (MEMORY_LIMIT_EXCEEDED) is one "for now".
   */
  code?: number;
  /** Refused by its query (throwIf), or by a CHECK constraint of its target named `refused`. */
  refusedBy?: 'query' | 'target';
  /** The target keeps cost_nanos too, so that a test can say which figures the view was given. */
  withCost?: boolean;
  /**
   * The target's non_replicated_deduplication_window, as the service's own tables have one: an
   * insert sent again with its token then reaches it once. None by default, so a second one shows.
   */
  deduplicationWindow?: number;
}

/**
 * A materialized view over events_v1 that refuses some campaigns' rows (the refusal the pipeline
 * meets after events_v1 took an insert), dropped with its target when the test ends. `accept()` is
 * the operator's fix: from then on it takes every row.
 */
export async function refusingView(ch: ClickHouse, options: RefusingViewOptions) {
  const { label, campaigns, code, refusedBy = 'query', withCost = false, deduplicationWindow } = options;
  const id = campaigns[0]!.replaceAll('-', '');
  const [view, sink] = [`${label}_mv_${id}`, `${label}_sink_${id}`];
  const listed = campaigns.map((campaign) => `'${campaign}'`).join(', ');
  const columns = withCost ? 'campaign_id, cost_nanos' : 'campaign_id';
  const constraint = refusedBy === 'target' ? `, CONSTRAINT refused CHECK campaign_id NOT IN (${listed})` : '';
  const settings = deduplicationWindow === undefined ? '' : ` SETTINGS non_replicated_deduplication_window = ${deduplicationWindow}`;
  await ch.client.command({
    query: `CREATE TABLE ${sink} (campaign_id UUID${withCost ? ', cost_nanos Int64' : ''}${constraint}) ENGINE = MergeTree ORDER BY campaign_id${settings}`,
  });
  onTestFinished(async () => {
    await ch.client.command({ query: `DROP VIEW IF EXISTS ${view}` });
    await ch.client.command({ query: `DROP TABLE IF EXISTS ${sink}` });
  });
  const createView = (where: string) => ch.client.command({ query: `CREATE MATERIALIZED VIEW ${view} TO ${sink} AS SELECT ${columns} FROM events_v1 ${where}` });
  const throwIf =
    code === undefined
      ? `WHERE throwIf(campaign_id IN (${listed}), 'this view refuses the campaign') = 0`
      : `WHERE throwIf(campaign_id IN (${listed}), 'this view refuses the campaign', toInt16(${code})) = 0 SETTINGS allow_custom_error_code_in_throwif = 1`;
  await createView(refusedBy === 'query' ? throwIf : '');
  return {
    view,
    sink,
    async accept() {
      if (refusedBy === 'target') {
        await ch.client.command({ query: `ALTER TABLE ${sink} DROP CONSTRAINT refused` });
        return;
      }
      await ch.client.command({ query: `DROP VIEW ${view}` });
      await createView('');
    },
  };
}
