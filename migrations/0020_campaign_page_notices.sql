-- Every transaction that writes campaigns, deleted_campaigns or memberships sends NOTIFY
-- campaign_pages (delivered at its commit, once per transaction, never for a rolled-back one).
-- These are the tables a report's page of campaigns reads (which campaigns an organization sees, in
-- which order, and its deleted ones: src/reporting/reportCampaigns.ts, deletedCampaigns.ts). On
-- embedded PGlite every write is this process's own, so the service remembers the pages it has read
-- and forgets them all when told: a repeated 1,000-row campaign report then asks PGlite nothing
-- (its two queries were 1.7 ms of the 4.3 a repeat costs the thread that answers, 3-10 ms on a busy
-- machine; bench/README "Report: session 43"). catalog_changes does not do: a campaign INSERT logs
-- no change (0012) and memberships none. Row triggers, so that rows deleted by ON DELETE CASCADE
-- (a user or organization removed) notify too.
CREATE FUNCTION notify_campaign_pages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('campaign_pages', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER campaigns_pages_notify AFTER INSERT OR UPDATE OR DELETE ON campaigns
  FOR EACH ROW EXECUTE FUNCTION notify_campaign_pages();
CREATE TRIGGER campaigns_pages_truncate_notify AFTER TRUNCATE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION notify_campaign_pages();
CREATE TRIGGER deleted_campaigns_pages_notify AFTER INSERT OR UPDATE OR DELETE ON deleted_campaigns
  FOR EACH ROW EXECUTE FUNCTION notify_campaign_pages();
CREATE TRIGGER deleted_campaigns_pages_truncate_notify AFTER TRUNCATE ON deleted_campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION notify_campaign_pages();
CREATE TRIGGER memberships_pages_notify AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION notify_campaign_pages();
CREATE TRIGGER memberships_pages_truncate_notify AFTER TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION notify_campaign_pages();
