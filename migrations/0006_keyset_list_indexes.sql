-- Keyset paging of the operators' lists (and of the campaign list, on campaigns_user_created_idx):
-- each list reads its page as a range of one of these indexes, starting after the cursor's
-- (created_at, id), so a deep page costs what the first does.
CREATE INDEX organizations_created_idx ON organizations (created_at, id);
CREATE INDEX memberships_organization_created_idx ON memberships (organization_id, created_at, user_id);
CREATE INDEX api_keys_organization_created_idx ON api_keys (organization_id, created_at, id);
CREATE INDEX publishers_created_idx ON publishers (created_at, id);
CREATE INDEX publisher_tokens_publisher_created_idx ON publisher_tokens (publisher_id, created_at, id);
CREATE INDEX placements_publisher_created_idx ON placements (publisher_id, created_at, id);
