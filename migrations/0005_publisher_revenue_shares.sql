-- The publisher's share of the valid spend on its placements, over time: a change applies from its
-- effective_from UTC day on, so past earnings keep the share they were earned under. A publisher
-- without a row earns the default share (DEFAULT_REVENUE_SHARE in src/reporting/revenueShares.ts).
CREATE TABLE publisher_revenue_shares (
  publisher_id uuid NOT NULL REFERENCES publishers (id) ON DELETE CASCADE,
  effective_from date NOT NULL,
  revenue_share numeric(7, 6) NOT NULL CHECK (revenue_share >= 0 AND revenue_share <= 1),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (publisher_id, effective_from)
);
