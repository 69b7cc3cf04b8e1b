-- Rollups for reporting beyond the campaign and daily totals (issue 15). Each is filled by a
-- materialized view from events_v1 (or, for serve counts, by the serving instances' counters) and
-- carries the table's deduplication window, so a pipeline batch re-sent after a crash counts once.

-- Valid events per campaign, UTC hour, line item, creative, placement and country: what the
-- advertiser breakdowns (line_item, placement, creative, country, hourly) and reach read.
-- users_state is a uniqCombined state of who saw a valid impression: the keyed user id of the
-- serve, or where there is none the address and user agent (only their 64-bit hashes are kept in
-- the state; events_v1 holds the raw values already). States merge across rows, so the reach of a
-- window is a distinct count over the window, never a sum or an average of days.
CREATE TABLE IF NOT EXISTS campaign_hourly_breakdown_v1 (
  hour DateTime('UTC'),
  campaign_id UUID,
  line_item_id UUID,
  creative_id UUID,
  placement_id String,
  country LowCardinality(String),
  impressions SimpleAggregateFunction(sum, UInt64),
  clicks SimpleAggregateFunction(sum, UInt64),
  conversions SimpleAggregateFunction(sum, UInt64),
  spend_nanos SimpleAggregateFunction(sum, Int64),
  revenue_nanos SimpleAggregateFunction(sum, Int64),
  users_state AggregateFunction(uniqCombined(17), String)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (campaign_id, hour, line_item_id, creative_id, placement_id, country)
SETTINGS non_replicated_deduplication_window = 10000;

-- What events_v1 already holds. Runs before the view exists, at start, before this instance writes
-- events (the same one-time window as clickhouse/0002).
INSERT INTO campaign_hourly_breakdown_v1
SELECT
  toStartOfHour(event_time) AS hour,
  campaign_id,
  line_item_id,
  creative_id,
  placement_id,
  country,
  countIf(type = 'impression'),
  countIf(type = 'click'),
  countIf(type = 'conversion'),
  sum(cost_nanos),
  sum(revenue_nanos),
  uniqCombinedStateIf(17)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent)), type = 'impression')
FROM events_v1
WHERE ivt = '' AND (SELECT count() FROM campaign_hourly_breakdown_v1) = 0
GROUP BY hour, campaign_id, line_item_id, creative_id, placement_id, country;

CREATE MATERIALIZED VIEW IF NOT EXISTS campaign_hourly_breakdown_mv_v1 TO campaign_hourly_breakdown_v1 AS
SELECT
  toStartOfHour(event_time) AS hour,
  campaign_id,
  line_item_id,
  creative_id,
  placement_id,
  country,
  countIf(type = 'impression') AS impressions,
  countIf(type = 'click') AS clicks,
  countIf(type = 'conversion') AS conversions,
  sum(cost_nanos) AS spend_nanos,
  sum(revenue_nanos) AS revenue_nanos,
  uniqCombinedStateIf(17)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent)), type = 'impression') AS users_state
FROM events_v1
WHERE ivt = ''
GROUP BY hour, campaign_id, line_item_id, creative_id, placement_id, country;

-- Valid and invalid events per placement and UTC day: publisher and operator reporting, read by
-- placement (the campaign-ordered rollups would have to scan every campaign for that).
CREATE TABLE IF NOT EXISTS placement_daily_stats_v1 (
  day Date,
  placement_id String,
  publisher_id UUID,
  impressions UInt64,
  clicks UInt64,
  conversions UInt64,
  spend_nanos Int64,
  invalid_impressions UInt64,
  invalid_clicks UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (placement_id, day, publisher_id)
SETTINGS non_replicated_deduplication_window = 10000;

INSERT INTO placement_daily_stats_v1
SELECT
  toDate(event_time) AS day,
  placement_id,
  publisher_id,
  countIf(type = 'impression' AND ivt = ''),
  countIf(type = 'click' AND ivt = ''),
  countIf(type = 'conversion' AND ivt = ''),
  sumIf(cost_nanos, ivt = ''),
  countIf(type = 'impression' AND ivt != ''),
  countIf(type = 'click' AND ivt != '')
FROM events_v1
WHERE (SELECT count() FROM placement_daily_stats_v1) = 0
GROUP BY day, placement_id, publisher_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS placement_daily_stats_mv_v1 TO placement_daily_stats_v1 AS
SELECT
  toDate(event_time) AS day,
  placement_id,
  publisher_id,
  countIf(type = 'impression' AND ivt = '') AS impressions,
  countIf(type = 'click' AND ivt = '') AS clicks,
  countIf(type = 'conversion' AND ivt = '') AS conversions,
  sumIf(cost_nanos, ivt = '') AS spend_nanos,
  countIf(type = 'impression' AND ivt != '') AS invalid_impressions,
  countIf(type = 'click' AND ivt != '') AS invalid_clicks
FROM events_v1
GROUP BY day, placement_id, publisher_id;

-- Ad requests and filled ones per placement and UTC day. Serving instances count in memory and
-- write one row per placement and day every few seconds (never a row per request); each write
-- carries an insert_deduplication_token, so a counts file replayed after a crash counts once.
CREATE TABLE IF NOT EXISTS placement_serve_counts_v1 (
  day Date,
  placement_id String,
  requests UInt64,
  filled UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (placement_id, day)
SETTINGS non_replicated_deduplication_window = 10000;
