-- The operators' creates sent with an Idempotency-Key (src/admin/operatorCreateKeys.ts): organizations,
-- API keys, publishers, publisher tokens and placements. One scope, the admin token's holder, so no
-- organization column (idempotent_creates, 0021, is the advertisers'). The key is kept as its SHA-256
-- and the answer sealed (AES-256-GCM under a key derived from the admin token and the Idempotency-Key):
-- an API key's or token's create answers its secret once, and secrets are otherwise stored only as
-- hashes. As in 0021, the row is inserted first in the create's own transaction and its answer set
-- before the commit: a crash keeps both or neither, and a resend while the first request runs waits
-- on the row, then finds the answer. answer_sealed is null only inside that transaction. Kept 24 hours
-- (created_at): an older key is deleted when it is sent again, and every hour by the admin routes' prune.
CREATE TABLE admin_idempotent_creates (
  idempotency_key_sha256 bytea PRIMARY KEY,
  request_sha256 bytea NOT NULL,
  answer_sealed bytea,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX admin_idempotent_creates_created_at ON admin_idempotent_creates (created_at);
