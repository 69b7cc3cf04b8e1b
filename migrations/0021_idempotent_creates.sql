-- The advertiser's creates sent with an Idempotency-Key (src/management/createOnce.ts): the key,
-- under the caller's organization, with the SHA-256 of the request's method, path and body and the
-- answer first given (status and JSON text). A resend with the key and the same request is answered
-- that text again and creates nothing; with another request, 422. The row is inserted first in the
-- create's own transaction and its answer set before the commit: a crash keeps both or neither, and
-- a resend while the first request runs waits on the row (another transaction's uncommitted key),
-- then finds the answer. answer_status and answer_body are null only inside that transaction.
-- Kept 24 hours (created_at): a key older than that is deleted when it is sent again, and every
-- hour by the management routes' prune.
CREATE TABLE idempotent_creates (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  request_sha256 bytea NOT NULL,
  answer_status integer,
  answer_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, idempotency_key)
);

CREATE INDEX idempotent_creates_created_at ON idempotent_creates (created_at);
