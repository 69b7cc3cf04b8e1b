-- Every transaction that writes catalog_changes also sends NOTIFY catalog_changes (delivered at its
-- commit, once per transaction however many rows it wrote, never for a rolled-back one). An
-- instance on embedded PGlite, where every catalog write is its own, reads the change log when told
-- instead of polling it every INDEX_REFRESH_MS (src/serving/adIndexRefresher.ts).
CREATE FUNCTION notify_catalog_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('catalog_changes', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER catalog_changes_notify AFTER INSERT ON catalog_changes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_changes();
