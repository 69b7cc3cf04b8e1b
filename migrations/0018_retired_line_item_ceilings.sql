-- What the billing ceilings need of a line item that left the serving index, for a process that
-- starts after it left (src/serving/retiredLineItems.ts). The links a line item was served with stay
-- valid for TRACKING_LINK_TTL_SECONDS after it is paused, ended or deleted; their events are judged
-- by its budgets and frequency cap (src/tracking/billingCeiling.ts). A running process keeps those
-- from its index; a new one reads them here at start.

-- A deleted campaign's line items keep their budgets and frequency cap in the tombstone (written by
-- the delete itself, campaignRepository.deleteCampaign). Tombstones written before this migration
-- have none (NULL): their late events are billed as signed, as before.
ALTER TABLE deleted_line_items
  ADD COLUMN budget_daily numeric(18, 6),
  ADD COLUMN budget_currency text,
  ADD COLUMN budget_lifetime numeric(18, 6),
  ADD COLUMN frequency_cap jsonb;
CREATE INDEX deleted_line_items_campaign_idx ON deleted_line_items (campaign_id);
CREATE INDEX deleted_campaigns_deleted_at_idx ON deleted_campaigns (deleted_at);

-- The start reads the line items that left within the links' lifetime by these, so that it costs
-- what recently left, not a scan of every line item (100,000 and more). A line item leaves by its
-- own status (paused, completed), by its campaign's (paused, completed: the flight sweep completes
-- an ended one), or when its campaign's flight ends (campaigns_open_flight_end_idx of 0004 finds
-- those the sweep has not completed yet). Drafts never served, so they are left out.
CREATE INDEX line_items_left_idx ON line_items (updated_at) WHERE status IN ('paused', 'completed');
CREATE INDEX campaigns_left_idx ON campaigns (updated_at) WHERE status IN ('paused', 'completed');
