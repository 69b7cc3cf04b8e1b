-- Valid events per campaign and UTC day only: what the reporting route reads. daily_stats_v1 keeps
-- line item and placement for pacing and learning, so it holds tens of rows per campaign-day; a
-- 92-day report over 1,000 campaigns reads ~92,000 rows here instead of millions there.
-- Filled from daily_stats_v1 by a chained view (every insert into it, including the pipeline's
-- deduplicated ones, reaches this table once).
CREATE TABLE IF NOT EXISTS campaign_daily_stats_v1 (
  day Date,
  campaign_id UUID,
  impressions UInt64,
  clicks UInt64,
  conversions UInt64,
  spend_nanos Int64,
  revenue_nanos Int64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (campaign_id, day)
SETTINGS non_replicated_deduplication_window = 10000;

-- What the finer rollup already holds. Runs before the view exists, at start, before this
-- instance writes events; an instance writing during another's first start could miss the rows it
-- writes in between (a one-time window of this migration).
INSERT INTO campaign_daily_stats_v1
SELECT day, campaign_id, sum(impressions), sum(clicks), sum(conversions), sum(spend_nanos), sum(revenue_nanos)
FROM daily_stats_v1
WHERE (SELECT count() FROM campaign_daily_stats_v1) = 0
GROUP BY day, campaign_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS campaign_daily_stats_mv_v1 TO campaign_daily_stats_v1 AS
SELECT
  day,
  campaign_id,
  sum(impressions) AS impressions,
  sum(clicks) AS clicks,
  sum(conversions) AS conversions,
  sum(spend_nanos) AS spend_nanos,
  sum(revenue_nanos) AS revenue_nanos
FROM daily_stats_v1
GROUP BY day, campaign_id;
