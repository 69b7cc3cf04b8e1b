-- Delivery controls (issue 14). Lifetime spend per line item, for lifetime budgets: pacing reads
-- one row per line item here instead of summing every day of daily_stats_v1. Filled from
-- daily_stats_v1 by a chained view, like campaign_daily_stats_v1 (see 0002).
CREATE TABLE IF NOT EXISTS line_item_spend_v1 (
  line_item_id UUID,
  spend_nanos Int64
)
ENGINE = SummingMergeTree
ORDER BY line_item_id
SETTINGS non_replicated_deduplication_window = 10000;

-- What the rollup already holds; the same one-time window as 0002's backfill.
INSERT INTO line_item_spend_v1
SELECT line_item_id, sum(spend_nanos)
FROM daily_stats_v1
WHERE (SELECT count() FROM line_item_spend_v1) = 0
GROUP BY line_item_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS line_item_spend_mv_v1 TO line_item_spend_v1 AS
SELECT line_item_id, sum(spend_nanos) AS spend_nanos
FROM daily_stats_v1
GROUP BY line_item_id;

-- Valid impressions per line item, keyed user and UTC hour, for frequency caps: a cap's window
-- (hour, day, week, lifetime) is a sum over these hours. Only rows with a user key are kept.
CREATE TABLE IF NOT EXISTS frequency_hours_v1 (
  line_item_id UUID,
  user_key String,
  hour DateTime('UTC'),
  impressions UInt64
)
ENGINE = SummingMergeTree
ORDER BY (line_item_id, user_key, hour)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS frequency_hours_mv_v1 TO frequency_hours_v1 AS
SELECT line_item_id, user_key, toStartOfHour(event_time) AS hour, count() AS impressions
FROM events_v1
WHERE type = 'impression' AND ivt = '' AND user_key != ''
GROUP BY line_item_id, user_key, hour;
