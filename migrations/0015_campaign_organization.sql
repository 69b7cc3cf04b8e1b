-- A campaign belongs to the organization whose API key made it, and is visible there only while its
-- user is a member (src/management/campaignTenancy.ts). Before, it belonged to every organization its
-- user was a member of, so adding a user to a second organization (an agency's person serving two
-- clients) showed one client's campaigns, reports, audit export and clicks to the other.
ALTER TABLE campaigns ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE SET NULL;

-- Campaigns made before this migration: the organization their user joined first, which is the
-- only one unless the user has been added to another since. A campaign whose user belongs to no
-- organization keeps NULL and stays visible to none, as it was.
UPDATE campaigns c SET organization_id = (
  SELECT m.organization_id FROM memberships m WHERE m.user_id = c.user_id ORDER BY m.created_at, m.organization_id LIMIT 1
);

-- The campaign list and the report read each member's campaigns of the organization in order, as a
-- range of these (the indexes of 0001 and 0009 with the organization in front; see
-- campaignRepository.listCampaigns), so a page still reads only its rows.
CREATE INDEX campaigns_organization_user_created_idx ON campaigns (organization_id, user_id, created_at, id);
CREATE INDEX campaigns_organization_user_status_created_idx ON campaigns (organization_id, user_id, status, created_at, id);
DROP INDEX campaigns_user_created_idx;
DROP INDEX campaigns_user_status_created_idx;
