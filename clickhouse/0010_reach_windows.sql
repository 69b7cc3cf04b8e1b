-- Reach over a report's past days, merged once and kept (issue 15). Merging the block states of
-- reach_blocks_v1 (clickhouse/0008) costs about 40-50 us per campaign for each large state, so a
-- 92-day window over 1,000 campaigns (9 blocks each, more while merges lag) took 450-600 ms at 100M
-- events. The days before today rarely change, so their merged state is kept per campaign (or line
-- item) and window in reach_windows_v1, and a report merges that one state with today's blocks
-- (src/reporting/reachWindows.ts).
--
-- A kept state must never hide events that arrive late for a past day. So every block row now also
-- counts the valid impressions its state was made from, written by the same view in the same row as
-- the state: a part holds both or neither, and a read sees a count and the state it belongs to. A
-- kept window state records the count it was merged from; when the window's blocks count more (a
-- late event), the state is merged again. Rows written before this migration count 0: the column
-- only has to grow whenever a state gains users, and only rows written from now on can.
ALTER TABLE reach_blocks_v1 ADD COLUMN IF NOT EXISTS impressions SimpleAggregateFunction(sum, UInt64);

ALTER TABLE reach_days_v1 ADD COLUMN IF NOT EXISTS impressions UInt64;

-- 0008's two views again, now carrying the count. Each new view exists before its old one goes,
-- so no insert is missed in between (a row written by both views only repeats users, which a union
-- ignores; its count is a version, not a total).
CREATE MATERIALIZED VIEW IF NOT EXISTS reach_blocks_mv_v2 TO reach_blocks_v1 AS
SELECT
  span_days,
  toDate('1970-01-01') + intDiv(dateDiff('day', toDate('1970-01-01'), day), span_days) * span_days AS block_start,
  level_key.1 AS level,
  campaign_id,
  level_key.2 AS line_item_id,
  uniqCombinedMergeState(12)(day_state) AS users_state,
  sum(day_impressions) AS impressions
FROM (SELECT day, campaign_id, line_item_id AS day_line_item, users_state AS day_state, impressions AS day_impressions FROM reach_days_v1)
ARRAY JOIN [1, 2, 4, 8, 16, 32, 64] AS span_days
ARRAY JOIN [('campaign', toUUID('00000000-0000-0000-0000-000000000000')), ('line_item', day_line_item)] AS level_key
GROUP BY span_days, block_start, level, campaign_id, line_item_id;

DROP VIEW IF EXISTS reach_blocks_mv_v1;

CREATE MATERIALIZED VIEW IF NOT EXISTS reach_days_mv_v2 TO reach_days_v1 AS
SELECT
  toDate(event_time) AS day,
  campaign_id,
  line_item_id,
  uniqCombinedState(12)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent))) AS users_state,
  count() AS impressions
FROM events_v1
WHERE type = 'impression' AND ivt = ''
GROUP BY day, campaign_id, line_item_id;

DROP VIEW IF EXISTS reach_days_mv_v1;

-- One row per level, window (its days before the day it was merged), campaign and line item (the
-- nil UUID at level 'campaign'), and count: a late event adds a row with a larger count, and a read
-- merges every row of its key (the older ones hold a subset of the newest one's users, so the union
-- is the newest). Rows are dropped a week after they were written; a report asking again merges
-- its window anew.
CREATE TABLE IF NOT EXISTS reach_windows_v1 (
  level LowCardinality(String),
  date_from Date,
  date_to Date,
  campaign_id UUID,
  line_item_id UUID,
  impressions UInt64,
  users_state AggregateFunction(uniqCombined(12), String),
  written_at DateTime DEFAULT now()
)
ENGINE = MergeTree
ORDER BY (level, date_from, date_to, campaign_id, line_item_id, impressions)
TTL written_at + INTERVAL 7 DAY
SETTINGS index_granularity = 256;
