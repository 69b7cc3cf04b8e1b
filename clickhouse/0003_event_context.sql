-- What an event's request told beyond its address: the client's country (geo targeting and reporting),
-- the keyed user id of its serve (frequency caps, reach) and the Fetch Metadata headers the browser
-- sent (how the pixel or click was requested: the spec's billing rules judge it). Appended after the
-- existing columns, so a spool segment written before this migration (its rows shorter) still inserts.
ALTER TABLE events_v1
  ADD COLUMN IF NOT EXISTS country LowCardinality(String) DEFAULT '',
  ADD COLUMN IF NOT EXISTS user_key String DEFAULT '',
  ADD COLUMN IF NOT EXISTS fetch_dest LowCardinality(String) DEFAULT '',
  ADD COLUMN IF NOT EXISTS fetch_mode LowCardinality(String) DEFAULT '',
  ADD COLUMN IF NOT EXISTS fetch_site LowCardinality(String) DEFAULT '';
