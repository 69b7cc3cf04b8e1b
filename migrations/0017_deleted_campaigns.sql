-- What a deleted campaign leaves behind for reports. Deleting a campaign removes it, its line items
-- and its creatives from management and serving, but the events it was billed for stay in
-- ClickHouse, and an advertiser's totals must not shrink because a campaign was deleted: the
-- reports keep showing a deleted campaign (as completed) over any window in which it has events,
-- with its name and its line items' and creatives' titles (src/reporting/deletedCampaigns.ts).
-- Written by the delete itself (campaignRepository.deleteCampaign), in the same statement.
CREATE TABLE deleted_campaigns (
  id uuid PRIMARY KEY,
  organization_id uuid REFERENCES organizations (id) ON DELETE SET NULL,
  user_id uuid NOT NULL REFERENCES users (id),
  name text NOT NULL,
  brand_name text NOT NULL,
  objective text,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now()
);
-- Reports read each member's deleted campaigns in creation order next to the live ones (the same
-- order as campaigns_organization_user_created_idx), so keyset paging runs over both alike.
CREATE INDEX deleted_campaigns_organization_user_created_idx ON deleted_campaigns (organization_id, user_id, created_at, id);

CREATE TABLE deleted_line_items (
  id uuid PRIMARY KEY,
  campaign_id uuid NOT NULL REFERENCES deleted_campaigns (id) ON DELETE CASCADE,
  title text NOT NULL
);

CREATE TABLE deleted_creatives (
  id uuid PRIMARY KEY,
  campaign_id uuid NOT NULL REFERENCES deleted_campaigns (id) ON DELETE CASCADE,
  title text NOT NULL
);
