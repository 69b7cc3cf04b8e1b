-- Flights and delivery controls (issue 14). A campaign's flight is [starts_at, ends_at): either end
-- may be open (NULL). The flight sweep completes campaigns whose ends_at has passed, using the
-- partial index below, so its periodic query reads only campaigns that are still to end.
ALTER TABLE campaigns
  ADD COLUMN starts_at timestamptz,
  ADD COLUMN ends_at timestamptz,
  ADD CONSTRAINT campaigns_flight_order CHECK (starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at);
CREATE INDEX campaigns_open_flight_end_idx ON campaigns (ends_at) WHERE ends_at IS NOT NULL AND status <> 'completed';

-- budget_lifetime is in budget_currency, like budget_daily. budget_pacing: even spreads the day's
-- budget over the UTC day, asap spends it as fast as traffic comes. frequency_cap is
-- {"impressions": n, "per": "hour" | "day" | "week" | "lifetime"} or NULL.
ALTER TABLE line_items
  ADD COLUMN budget_lifetime numeric(18, 6),
  ADD COLUMN budget_pacing text NOT NULL DEFAULT 'even' CHECK (budget_pacing IN ('even', 'asap')),
  ADD COLUMN frequency_cap jsonb;
