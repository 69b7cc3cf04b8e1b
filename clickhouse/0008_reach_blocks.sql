-- Reach (unique_users) over any window of days, read from a few sketches instead of one per day.
-- campaign_dimension_daily_v1 keeps a uniqCombined(17) state per line item and day: a 92-day
-- report over 1,000 campaigns merged 92,000 of them, and reading one costs microseconds whatever
-- its size (about 450 ms at 5M events, more at 100M). Here each campaign and line item has a state
-- per aligned block of 1, 2, 4, ..., 64 days (a block of N days starts on a day number divisible by
-- N), so a window is the union of at most about a dozen blocks (src/reporting/reachBlocks.ts), and
-- the rows of one block sit together in the sort key, whatever the organization.
-- uniqCombined(12): exact for small sets, then a HyperLogLog of 4,096 cells, standard error about
-- 1.6 % (1.04/sqrt(4096)); the smaller state is what makes a merge cheap.
-- level 'campaign' rows are a campaign's reach over all its line items (line_item_id is the nil
-- UUID); level 'line_item' rows one line item's. Granules of 256 rows: a state is up to a few KB,
-- and a report reads a few hundred rows of each block, which the default 8,192-row granule would
-- make tens of thousands (every state of a granule is read, wanted or not).
CREATE TABLE IF NOT EXISTS reach_blocks_v1 (
  span_days UInt8,
  block_start Date,
  level LowCardinality(String),
  campaign_id UUID,
  line_item_id UUID,
  users_state AggregateFunction(uniqCombined(12), String)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(block_start)
ORDER BY (span_days, block_start, level, campaign_id, line_item_id)
SETTINGS index_granularity = 256, non_replicated_deduplication_window = 10000;

-- Each insert into events_v1 first becomes one state per line item and day (reach_days_v1 keeps
-- nothing: a Null table only hands its rows to the view below), which the second view folds into
-- the seven blocks holding that day, for the line item and for its campaign. The per-event work is
-- one hash per valid impression; the fan-out to blocks works on the day states.
CREATE TABLE IF NOT EXISTS reach_days_v1 (
  day Date,
  campaign_id UUID,
  line_item_id UUID,
  users_state AggregateFunction(uniqCombined(12), String)
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS reach_blocks_mv_v1 TO reach_blocks_v1 AS
SELECT
  span_days,
  toDate('1970-01-01') + intDiv(dateDiff('day', toDate('1970-01-01'), day), span_days) * span_days AS block_start,
  level_key.1 AS level,
  campaign_id,
  level_key.2 AS line_item_id,
  uniqCombinedMergeState(12)(day_state) AS users_state
FROM (SELECT day, campaign_id, line_item_id AS day_line_item, users_state AS day_state FROM reach_days_v1)
ARRAY JOIN [1, 2, 4, 8, 16, 32, 64] AS span_days
ARRAY JOIN [('campaign', toUUID('00000000-0000-0000-0000-000000000000')), ('line_item', day_line_item)] AS level_key
GROUP BY span_days, block_start, level, campaign_id, line_item_id;

-- What events_v1 already holds, before the first view exists (the one-time window of clickhouse/0002).
INSERT INTO reach_days_v1
SELECT toDate(event_time) AS day, campaign_id, line_item_id,
       uniqCombinedState(12)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent)))
FROM events_v1
WHERE type = 'impression' AND ivt = '' AND (SELECT count() FROM reach_blocks_v1) = 0
GROUP BY day, campaign_id, line_item_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS reach_days_mv_v1 TO reach_days_v1 AS
SELECT
  toDate(event_time) AS day,
  campaign_id,
  line_item_id,
  uniqCombinedState(12)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent))) AS users_state
FROM events_v1
WHERE type = 'impression' AND ivt = ''
GROUP BY day, campaign_id, line_item_id;
