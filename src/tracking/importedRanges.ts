import { ApiError } from '../http/errors.js';
import type { Postgres } from '../store/postgres.js';

/**
 * A batch of an import: the fixed range of line numbers it covers (1 to 1000, 1001 to 2000, ...,
 * and the body's last lines; an empty range past the last line when the body ends at a range's
 * end), and the SHA-256 of the range's lines.
 */
export interface ImportedRange {
  first: number;
  last: number;
  sha256: Buffer;
}

/**
 * Records the range's text under the import's Idempotency-Key, or, when the key already has text for
 * these lines, refuses (422 validation_error) a range whose text differs: the key was sent with
 * another body. Called before any of the range's events is stored, so the lines before it, the same
 * as the first body's, are all such a request stores. Ranges are recorded as they are read in full:
 * a body cut midway recorded its complete ranges only, so the same file sent whole matches them, and
 * an empty range marks where a body ended, so a longer body under the key is refused there too.
 */
export async function checkImportedRange(db: Postgres, key: string, range: ImportedRange): Promise<void> {
  // DO UPDATE, not DO NOTHING: RETURNING then gives the text recorded first, also when a request
  // with the same key recorded it a moment ago (a DO NOTHING returns no row, and its statement's
  // snapshot would not see that row either).
  const { rows } = await db.query<{ sha256: Uint8Array }>(
    `INSERT INTO event_import_ranges (idempotency_key, first_line, sha256) VALUES ($1, $2, $3)
     ON CONFLICT (idempotency_key, first_line) DO UPDATE SET sha256 = event_import_ranges.sha256
     RETURNING sha256`,
    [key, range.first, range.sha256],
  );
  if (Buffer.from(rows[0]!.sha256).equals(range.sha256)) return;
  // Only the range's digest is kept, not how many lines the first body had in it: so a body whose
  // lines are all the first one's but fewer or more of them in the range is told apart from one with
  // other lines only when it ended right before the range (try30 L5: naming lines as differing that
  // were byte for byte the first body's sent the sender looking for a difference that was not there).
  const lines =
    range.last < range.first
      ? `this one ends at line ${range.last}, that one went on`
      : `lines ${range.first} to ${range.last} are not what that one had from line ${range.first} on: other text, or that one had more or fewer lines there`;
  throw new ApiError('validation_error', `the Idempotency-Key was already used with another body (${lines}); send a different file with a new key`, [
    { path: 'Idempotency-Key', message: 'already used with another body' },
  ]);
}
