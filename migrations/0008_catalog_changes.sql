-- What changed in the catalog, row by row, written by triggers in the same transaction as the
-- change: every instance's serving index polls it and reloads only what a change touched
-- (src/serving/catalogChanges.ts). `xid` is the writing transaction: a poller re-reads the rows
-- of every transaction that may still have been running at its previous poll (xid at or above
-- that poll's snapshot xmin), so a transaction that commits late, or out of id order, is never
-- missed, whatever the clocks say.
CREATE TABLE catalog_changes (
  id bigserial PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  -- 'campaign', 'line_item' (its creatives too), 'placement' or 'token' (by token_hash).
  kind text NOT NULL,
  entity_id text NOT NULL
);
CREATE INDEX catalog_changes_xid_idx ON catalog_changes (xid);

-- Changes of every transaction below `below` may have been deleted (pruneCatalogChanges): a poller
-- whose horizon is lower could have missed some, and rebuilds its index instead of patching it.
CREATE TABLE catalog_changes_pruned (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  below xid8 NOT NULL
);
INSERT INTO catalog_changes_pruned (below) VALUES ('0');

CREATE FUNCTION record_catalog_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  column_name text := TG_ARGV[1];
  old_id text;
  new_id text;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_id := to_jsonb(OLD) ->> column_name; END IF;
  IF TG_OP <> 'DELETE' THEN new_id := to_jsonb(NEW) ->> column_name; END IF;
  IF new_id IS NOT NULL THEN INSERT INTO catalog_changes (kind, entity_id) VALUES (kind, new_id); END IF;
  IF old_id IS NOT NULL AND old_id IS DISTINCT FROM new_id THEN
    INSERT INTO catalog_changes (kind, entity_id) VALUES (kind, old_id);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER campaigns_catalog_changes AFTER INSERT OR UPDATE OR DELETE ON campaigns
  FOR EACH ROW EXECUTE FUNCTION record_catalog_change('campaign', 'id');
CREATE TRIGGER line_items_catalog_changes AFTER INSERT OR UPDATE OR DELETE ON line_items
  FOR EACH ROW EXECUTE FUNCTION record_catalog_change('line_item', 'id');
CREATE TRIGGER creatives_catalog_changes AFTER INSERT OR UPDATE OR DELETE ON creatives
  FOR EACH ROW EXECUTE FUNCTION record_catalog_change('line_item', 'line_item_id');
CREATE TRIGGER placements_catalog_changes AFTER INSERT OR UPDATE OR DELETE ON placements
  FOR EACH ROW EXECUTE FUNCTION record_catalog_change('placement', 'id');
CREATE TRIGGER publisher_tokens_catalog_changes AFTER INSERT OR UPDATE OR DELETE ON publisher_tokens
  FOR EACH ROW EXECUTE FUNCTION record_catalog_change('token', 'token_hash');

-- The version sequence the index used to poll (0001) is replaced by the rows above.
DROP TRIGGER campaigns_catalog_version ON campaigns;
DROP TRIGGER line_items_catalog_version ON line_items;
DROP TRIGGER creatives_catalog_version ON creatives;
DROP TRIGGER placements_catalog_version ON placements;
DROP TRIGGER publisher_tokens_catalog_version ON publisher_tokens;
DROP FUNCTION bump_catalog_version();
DROP SEQUENCE catalog_version;
