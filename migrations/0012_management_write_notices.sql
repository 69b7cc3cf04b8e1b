-- Two notices of management writes: api_keys notifies its changes; a campaign INSERT logs no catalog change.

-- Every transaction that writes api_keys sends NOTIFY api_keys (delivered at its commit, once per
-- transaction, never for a rolled-back one). On embedded PGlite every write is this process's own,
-- so the service keeps the keys it has looked up in memory and forgets them all when told
-- (src/http/apiKeyAuth.ts): a revoked key still stops working at once. Row triggers, so that a key
-- deleted with its organization (ON DELETE CASCADE) notifies too.
CREATE FUNCTION notify_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_keys', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_notify AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_keys_changed();
CREATE TRIGGER api_keys_truncate_notify AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys_changed();

-- A new campaign has no line items, so its INSERT changes nothing any serving index holds: its
-- line items log their own changes (in the same transaction when composed or duplicated), and
-- reloading one reads its campaign. Logging the INSERT made every instance read the change log
-- and reload the campaign after each create (on embedded PGlite 2-3 ms of the single connection
-- per create, ahead of the next request). Updates and deletes are still logged.
DROP TRIGGER campaigns_catalog_changes ON campaigns;
CREATE TRIGGER campaigns_catalog_changes AFTER UPDATE OR DELETE ON campaigns
  FOR EACH ROW EXECUTE FUNCTION record_catalog_change('campaign', 'id');
