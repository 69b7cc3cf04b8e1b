-- The event time of each conversion with a conversion_id, as its first request gave it (occurred_at,
-- or when it arrived), so that every retry writes the conversion with that same time
-- (src/tracking/conversionTimes.ts). ClickHouse drops a second insert of a conversion by its
-- deduplication token only within the same partition, a month of event_time: a retry stamped with
-- its own time after a month boundary (no answer at 23:59:59 on the 31st, retried at 00:00:01)
-- would be kept beside a first insert that ClickHouse took late. A row is only needed while such an
-- insert can still land, so rows older than a day are deleted.
CREATE TABLE conversion_times (
  event_id uuid PRIMARY KEY,
  occurred_ms bigint NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversion_times_first_seen ON conversion_times (first_seen_at);
