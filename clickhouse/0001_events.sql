-- Every impression, click and conversion, valid or not. Invalid traffic (ivt != '') is kept for
-- audit and certification decisions, and never reaches the rollups that billing and reporting read.
-- Money is in nano-USD (Int64) so that sums are exact: a tCPM bid of 2.5 spends 2,500,000 per impression.
-- non_replicated_deduplication_window lets the event writer re-send a batch after a crash with the
-- same insert_deduplication_token without counting it twice (here and in the views below).
CREATE TABLE IF NOT EXISTS events_v1 (
  event_id UUID,
  event_time DateTime64(3, 'UTC'),
  type LowCardinality(String),
  source LowCardinality(String),
  serve_id String,
  campaign_id UUID,
  line_item_id UUID,
  creative_id UUID,
  placement_id String,
  publisher_id UUID,
  price_model LowCardinality(String),
  cost_nanos Int64,
  revenue_nanos Int64,
  click_id UUID,
  ip String,
  ip_class LowCardinality(String),
  ip_network String,
  user_agent String,
  ivt LowCardinality(String),
  INDEX serve_id_idx serve_id TYPE bloom_filter(0.01) GRANULARITY 4,
  INDEX event_id_idx event_id TYPE bloom_filter(0.01) GRANULARITY 4,
  INDEX placement_idx placement_id TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(event_time)
ORDER BY (campaign_id, event_time, type)
TTL toDateTime(event_time) + INTERVAL 400 DAY
SETTINGS non_replicated_deduplication_window = 10000;

-- Valid events per campaign, line item, placement and UTC day: what reporting and pacing read.
CREATE TABLE IF NOT EXISTS daily_stats_v1 (
  day Date,
  campaign_id UUID,
  line_item_id UUID,
  placement_id String,
  impressions UInt64,
  clicks UInt64,
  conversions UInt64,
  spend_nanos Int64,
  revenue_nanos Int64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (campaign_id, day, line_item_id, placement_id)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS daily_stats_mv_v1 TO daily_stats_v1 AS
SELECT
  toDate(event_time) AS day,
  campaign_id,
  line_item_id,
  placement_id,
  countIf(type = 'impression') AS impressions,
  countIf(type = 'click') AS clicks,
  countIf(type = 'conversion') AS conversions,
  sum(cost_nanos) AS spend_nanos,
  sum(revenue_nanos) AS revenue_nanos
FROM events_v1
WHERE ivt = ''
GROUP BY day, campaign_id, line_item_id, placement_id;

-- Invalid events per campaign, UTC day, reason and type: the traffic-quality view.
CREATE TABLE IF NOT EXISTS daily_ivt_v1 (
  day Date,
  campaign_id UUID,
  placement_id String,
  ivt LowCardinality(String),
  type LowCardinality(String),
  events UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (campaign_id, day, placement_id, ivt, type)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS daily_ivt_mv_v1 TO daily_ivt_v1 AS
SELECT toDate(event_time) AS day, campaign_id, placement_id, ivt, type, count() AS events
FROM events_v1
WHERE ivt != ''
GROUP BY day, campaign_id, placement_id, ivt, type;
