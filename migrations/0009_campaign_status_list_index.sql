-- The campaign list filtered by status (GET /v1/advertiser/campaigns?status=...) reads each page
-- as a range of this index, starting after the cursor's (created_at, id), instead of walking every
-- campaign of the member in order and dropping those of another status: a deep page of a rare
-- status then costs what the first page does.
CREATE INDEX campaigns_user_status_created_idx ON campaigns (user_id, status, created_at, id);
