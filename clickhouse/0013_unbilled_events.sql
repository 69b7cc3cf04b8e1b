-- Why a valid event was stored without being billed (src/tracking/unbilledReasons.ts): its cost
-- would have taken its line item past a billing ceiling (twice the daily budget in a UTC day, the
-- lifetime budget) or its user past the frequency cap. '' for every other event. A column of its
-- own, not a reason in ivt: such an event is a real person's impression or click (it counts as one
-- in every rollup, at cost 0), and the traffic-quality report and the publisher's invalid rates,
-- which read ivt, must not call it invalid traffic. Appended after the existing columns, so a
-- spool segment written before this migration (its rows shorter) still inserts.
ALTER TABLE events_v1
  ADD COLUMN IF NOT EXISTS unbilled LowCardinality(String) DEFAULT '';
