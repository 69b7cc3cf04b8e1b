-- The bodies imported with an Idempotency-Key, range of lines by range (src/tracking/importedRanges.ts):
-- the SHA-256 of lines first_line to first_line + 999 (fewer at the body's end; none past its last
-- line) as first sent under the key. A request with the key and other text for the same lines is
-- refused (422) before any of them is stored: before, its lines that happened to be the same at the
-- same line number were silently taken for already imported.
CREATE TABLE event_import_ranges (
  idempotency_key text NOT NULL,
  first_line integer NOT NULL,
  sha256 bytea NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (idempotency_key, first_line)
);
