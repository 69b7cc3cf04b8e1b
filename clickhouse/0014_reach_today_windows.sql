-- Reach of a window that reaches today, kept as of the last report that merged it (issue 15).
-- reach_windows_v1 (clickhouse/0010, 0011) keeps only a window's days before today, so every report
-- of a window ending today merged each key's kept state with today's block states: two to four large
-- uniqCombined(12) states per key, 100-110 ms for 1,000 campaigns at 100M events, on every request.
-- Between two reports most campaigns have no new impression. So the union (the kept past days and
-- today's blocks) is kept here too, per key, with the count of valid impressions it was merged from
-- and its figure, like a past window's row: a report reads the figure of each campaign whose keys'
-- counts still cover the blocks now, merges the others as before, and writes their rows after it
-- has answered (src/reporting/reachBlocks.ts, keptReachWrites.ts).
--
-- One row per level, window, campaign and line item (the nil UUID at level 'campaign') once merged:
-- a key merged again, by this instance or another, writes a row with its count, and the engine keeps
-- only the row with the largest count (a superset of the others' users) when it merges parts, so
-- live traffic does not pile rows up; reads take the largest count among the rows not merged yet.
-- A window reaching today is mostly asked for that day only (tomorrow, one ending today is all past
-- days, kept in reach_windows_v1), so rows are trusted for a day and dropped after two.
CREATE TABLE IF NOT EXISTS reach_today_windows_v1 (
  level LowCardinality(String),
  date_from Date,
  date_to Date,
  campaign_id UUID,
  line_item_id UUID,
  impressions UInt64,
  users_state AggregateFunction(uniqCombined(12), String),
  unique_users UInt64,
  written_at DateTime DEFAULT now()
)
ENGINE = ReplacingMergeTree(impressions)
ORDER BY (level, date_from, date_to, campaign_id, line_item_id)
TTL written_at + INTERVAL 2 DAY
SETTINGS index_granularity = 256;
