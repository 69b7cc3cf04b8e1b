-- Rollups for reporting beyond the campaign and daily totals (issue 15). Each is filled by a
-- materialized view from events_v1 (or, for serve counts, by the serving instances' counters) and
-- carries the table's deduplication window, so a pipeline batch re-sent after a crash counts once.

-- Valid events per campaign and UTC hour: the hourly breakdown (24 rows per campaign-day).
CREATE TABLE IF NOT EXISTS campaign_hourly_stats_v1 (
  hour DateTime('UTC'),
  campaign_id UUID,
  impressions UInt64,
  clicks UInt64,
  conversions UInt64,
  spend_nanos Int64,
  revenue_nanos Int64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (campaign_id, hour)
SETTINGS non_replicated_deduplication_window = 10000;

-- What events_v1 already holds. Runs before the view exists, at start, before this instance writes
-- events (the same one-time window as clickhouse/0002); likewise for the tables below.
INSERT INTO campaign_hourly_stats_v1
SELECT toStartOfHour(event_time) AS hour, campaign_id, countIf(type = 'impression'), countIf(type = 'click'),
       countIf(type = 'conversion'), sum(cost_nanos), sum(revenue_nanos)
FROM events_v1
WHERE ivt = '' AND (SELECT count() FROM campaign_hourly_stats_v1) = 0
GROUP BY hour, campaign_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS campaign_hourly_stats_mv_v1 TO campaign_hourly_stats_v1 AS
SELECT
  toStartOfHour(event_time) AS hour,
  campaign_id,
  countIf(type = 'impression') AS impressions,
  countIf(type = 'click') AS clicks,
  countIf(type = 'conversion') AS conversions,
  sum(cost_nanos) AS spend_nanos,
  sum(revenue_nanos) AS revenue_nanos
FROM events_v1
WHERE ivt = ''
GROUP BY hour, campaign_id;

-- Valid events per breakdown dimension (line_item, creative, placement, country), its key, campaign
-- and UTC day: one row per key a campaign had that day, so each breakdown reads only its own part
-- (the sort key starts with the dimension) and never the per-event detail of all four at once.
-- users_state (line_item rows only; empty elsewhere) is a uniqCombined state of who saw a valid
-- impression: the keyed user id of the serve, or where there is none the address and user agent
-- (only their 64-bit hashes are kept in the state; events_v1 holds the raw values already). States
-- merge across rows, so the reach of a window is a distinct count, never a sum or average of days.
CREATE TABLE IF NOT EXISTS campaign_dimension_daily_v1 (
  dimension LowCardinality(String),
  campaign_id UUID,
  day Date,
  key String,
  impressions SimpleAggregateFunction(sum, UInt64),
  clicks SimpleAggregateFunction(sum, UInt64),
  conversions SimpleAggregateFunction(sum, UInt64),
  spend_nanos SimpleAggregateFunction(sum, Int64),
  revenue_nanos SimpleAggregateFunction(sum, Int64),
  users_state AggregateFunction(uniqCombined(17), String)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (dimension, campaign_id, day, key)
SETTINGS non_replicated_deduplication_window = 10000;

INSERT INTO campaign_dimension_daily_v1
SELECT
  dimension_key.1 AS dimension,
  campaign_id,
  toDate(event_time) AS day,
  dimension_key.2 AS key,
  countIf(type = 'impression'),
  countIf(type = 'click'),
  countIf(type = 'conversion'),
  sum(cost_nanos),
  sum(revenue_nanos),
  uniqCombinedStateIf(17)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent)), type = 'impression' AND dimension = 'line_item')
FROM events_v1
ARRAY JOIN [('line_item', toString(line_item_id)), ('creative', toString(creative_id)), ('placement', placement_id), ('country', toString(country))] AS dimension_key
WHERE ivt = '' AND (SELECT count() FROM campaign_dimension_daily_v1) = 0
GROUP BY dimension, campaign_id, day, key;

CREATE MATERIALIZED VIEW IF NOT EXISTS campaign_dimension_daily_mv_v1 TO campaign_dimension_daily_v1 AS
SELECT
  dimension_key.1 AS dimension,
  campaign_id,
  toDate(event_time) AS day,
  dimension_key.2 AS key,
  countIf(type = 'impression') AS impressions,
  countIf(type = 'click') AS clicks,
  countIf(type = 'conversion') AS conversions,
  sum(cost_nanos) AS spend_nanos,
  sum(revenue_nanos) AS revenue_nanos,
  uniqCombinedStateIf(17)(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent)), type = 'impression' AND dimension = 'line_item') AS users_state
FROM events_v1
ARRAY JOIN [('line_item', toString(line_item_id)), ('creative', toString(creative_id)), ('placement', placement_id), ('country', toString(country))] AS dimension_key
WHERE ivt = ''
GROUP BY dimension, campaign_id, day, key;

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
