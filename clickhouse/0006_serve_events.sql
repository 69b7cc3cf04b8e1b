-- What each serve's tracking links have recorded, keyed by serve id: how an instance that does not
-- remember a serve (it was served and tracked through another instance, or before a restart) learns
-- whether its impression and click were already billed. events_v1 is ordered by campaign and time,
-- so a batch of serve ids from many campaigns and days would scan it; here it is one primary-key
-- range per serve. Only link events whose token verified are kept (forged and expired tokens teach
-- nothing about a serve), and only for as long as a link can be valid (TRACKING_LINK_TTL_SECONDS
-- is at most 30 days). The event id tells a segment sent again (after a crash or a lost answer)
-- its own events apart from another instance's.
CREATE TABLE IF NOT EXISTS serve_events_v1 (
  serve_id String,
  type LowCardinality(String),
  event_id UUID,
  event_time DateTime64(3, 'UTC'),
  counted UInt8
)
ENGINE = MergeTree
ORDER BY (serve_id, type)
TTL toDateTime(event_time) + INTERVAL 35 DAY
SETTINGS non_replicated_deduplication_window = 10000;

-- What events_v1 already holds for links still valid; the same one-time window as 0002's backfill.
INSERT INTO serve_events_v1
SELECT serve_id, type, event_id, event_time, ivt = '' AS counted
FROM events_v1
WHERE source IN ('pixel', 'click') AND ivt NOT IN ('bad_token', 'expired_token')
  AND event_time >= now() - INTERVAL 35 DAY
  AND (SELECT count() FROM serve_events_v1) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS serve_events_mv_v1 TO serve_events_v1 AS
SELECT serve_id, type, event_id, event_time, ivt = '' AS counted
FROM events_v1
WHERE source IN ('pixel', 'click') AND ivt NOT IN ('bad_token', 'expired_token');
