-- Tenancy, keys, publishers and the advertiser catalog. Money is numeric (exact); ids are UUIDs,
-- except placement ids, which are the publisher's own strings.

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- Keys are stored as SHA-256 hashes only; the key itself is shown once, when it is made.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  permissions text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE publishers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE publisher_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  publisher_id uuid NOT NULL REFERENCES publishers (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE placements (
  id text PRIMARY KEY,
  publisher_id uuid NOT NULL REFERENCES publishers (id) ON DELETE CASCADE,
  name text,
  certification text NOT NULL DEFAULT 'uncertified' CHECK (certification IN ('uncertified', 'certified', 'revoked')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX placements_publisher_idx ON placements (publisher_id);

-- Every certification change, by whom and why: the audit trail of "Events" rule 4.
CREATE TABLE placement_certification_history (
  id bigserial PRIMARY KEY,
  placement_id text NOT NULL REFERENCES placements (id) ON DELETE CASCADE,
  from_state text,
  to_state text NOT NULL,
  actor text NOT NULL,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX placement_certification_history_placement_idx ON placement_certification_history (placement_id, id);

-- Campaigns have no org_id: tenancy is "the campaign's user is a member of the key's organization".
CREATE TABLE campaigns (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  name text NOT NULL,
  brand_name text NOT NULL,
  objective text,
  status text NOT NULL CHECK (status IN ('active', 'paused', 'completed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_user_created_idx ON campaigns (user_id, created_at, id);

CREATE TABLE line_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  title text NOT NULL,
  objective text,
  primary_kpi text,
  status text NOT NULL,
  budget_daily numeric(18, 6),
  budget_currency text,
  bid_type text,
  bid_value numeric(18, 6),
  targeting jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX line_items_campaign_idx ON line_items (campaign_id, created_at, id);

CREATE TABLE creatives (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  line_item_id uuid NOT NULL REFERENCES line_items (id) ON DELETE CASCADE,
  format text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  cta text NOT NULL,
  destination_url text NOT NULL,
  image_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX creatives_line_item_idx ON creatives (line_item_id, created_at, id);

-- The serving index polls this sequence: any change to what can be served bumps it, in the same
-- transaction as the change, so every instance sees a management change within one poll.
CREATE SEQUENCE catalog_version;

CREATE FUNCTION bump_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nextval('catalog_version');
  RETURN NULL;
END;
$$;

CREATE TRIGGER campaigns_catalog_version AFTER INSERT OR UPDATE OR DELETE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version();
CREATE TRIGGER line_items_catalog_version AFTER INSERT OR UPDATE OR DELETE ON line_items
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version();
CREATE TRIGGER creatives_catalog_version AFTER INSERT OR UPDATE OR DELETE ON creatives
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version();
CREATE TRIGGER placements_catalog_version AFTER INSERT OR UPDATE OR DELETE ON placements
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version();
CREATE TRIGGER publisher_tokens_catalog_version AFTER INSERT OR UPDATE OR DELETE ON publisher_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_version();
