-- Forged impressions per placement and UTC day: impressions stored as ivt = 'bad_token' (a tracking
-- link whose signature does not verify) under the placement and publisher ids its forger wrote into
-- it. They stay in invalid_impressions, which the operator's totals read (platform-wide invalid
-- traffic); the publisher's report subtracts them (src/reporting/publisherReport.ts): anyone holding
-- one of a publisher's links can make them, so they are not the publisher's traffic.
ALTER TABLE placement_daily_stats_v1
  ADD COLUMN IF NOT EXISTS forged_impressions UInt64 DEFAULT 0;

-- The days events_v1 still holds (its TTL: 400 days; older days keep their forgeries in the
-- publisher's count). Before the view, as 0004's backfill: a forgery stored between the two is
-- left counted as the publisher's invalid impression rather than subtracted twice. The condition
-- keeps a re-run of an interrupted migration from counting them again.
INSERT INTO placement_daily_stats_v1 (day, placement_id, publisher_id, forged_impressions)
SELECT toDate(event_time) AS day, placement_id, publisher_id, count()
FROM events_v1
WHERE type = 'impression' AND ivt = 'bad_token'
  AND (SELECT count() FROM placement_daily_stats_v1 WHERE forged_impressions != 0) = 0
GROUP BY day, placement_id, publisher_id;

-- A second view into the same SummingMergeTree rather than a replaced 0004 view: replacing it
-- would drop or double the events of the moment between dropping one and creating the other, in
-- every column. This one writes only forged_impressions (the other columns 0) and no row at all
-- for an insert without a forged impression.
CREATE MATERIALIZED VIEW IF NOT EXISTS placement_forged_impressions_mv_v1 TO placement_daily_stats_v1 AS
SELECT toDate(event_time) AS day, placement_id, publisher_id, count() AS forged_impressions
FROM events_v1
WHERE type = 'impression' AND ivt = 'bad_token'
GROUP BY day, placement_id, publisher_id;
