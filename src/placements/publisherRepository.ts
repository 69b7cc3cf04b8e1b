import type { SqlExecutor, TransactionExecutor } from '../store/postgres.js';
import { hashSecret, newSecret } from '../http/secretHash.js';
import type { PublisherSummary } from './publisherLists.js';

/** The publisher and its first token, in the caller's transaction: never a publisher without a token. */
export async function createPublisher(tx: TransactionExecutor, name: string) {
  const { rows } = await tx.query<{ id: string; name: string; created_at: string }>(
    'INSERT INTO publishers (name) VALUES ($1) RETURNING id, name, created_at',
    [name],
  );
  const publisher = rows[0]!;
  const token = await issuePublisherToken(tx, publisher.id);
  return { ...publisher, token: token.token, token_id: token.id };
}

export async function findPublisher(db: SqlExecutor, publisherId: string): Promise<PublisherSummary | undefined> {
  const { rows } = await db.query<PublisherSummary>('SELECT id, name, created_at FROM publishers WHERE id = $1', [publisherId]);
  return rows[0];
}

export async function publisherExists(db: SqlExecutor, publisherId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM publishers WHERE id = $1', [publisherId]);
  return rows.length > 0;
}

/** A new bearer token for the publisher's backend; shown once, stored as a hash. */
export async function issuePublisherToken(db: SqlExecutor, publisherId: string) {
  const token = newSecret('pt_');
  const { rows } = await db.query<{ id: string; created_at: string }>(
    'INSERT INTO publisher_tokens (publisher_id, token_hash) VALUES ($1, $2) RETURNING id, created_at',
    [publisherId, hashSecret(token)],
  );
  return { id: rows[0]!.id, publisher_id: publisherId, token, created_at: rows[0]!.created_at };
}

/** Revokes once (a second revoke keeps the first revoked_at); false when there is no token with that id. */
export async function revokePublisherToken(db: SqlExecutor, tokenId: string): Promise<boolean> {
  // The UPDATE runs whether or not the SELECT reads it; the SELECT sees the row as it was before.
  const { rows } = await db.query(
    `WITH revoked AS (UPDATE publisher_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id)
     SELECT id FROM publisher_tokens WHERE id = $1`,
    [tokenId],
  );
  return rows.length > 0;
}

/** The publisher a live token belongs to, or undefined. */
export async function findPublisherByToken(db: SqlExecutor, token: string): Promise<string | undefined> {
  const { rows } = await db.query<{ publisher_id: string }>(
    'SELECT publisher_id FROM publisher_tokens WHERE token_hash = $1 AND revoked_at IS NULL',
    [hashSecret(token)],
  );
  return rows[0]?.publisher_id;
}
