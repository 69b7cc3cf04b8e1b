import type { FastifyRequest } from 'fastify';
import { advertiserOf } from '../http/apiKeyAuth.js';
import { KEPT_HOURS, type CreateKeys } from '../http/createOnce.js';
import type { SqlExecutor } from '../store/postgres.js';

/**
 * The advertiser's create keys (createOnce.ts), under the caller's organization in
 * `idempotent_creates` (migrations/0021): two organizations may use the same key. The answer is
 * kept as its text: the advertiser's creates answer no secret.
 */
export function organizationCreateKeys(request: FastifyRequest): CreateKeys {
  const { organizationId } = advertiserOf(request);
  return {
    async claim(tx, key, digest) {
      // An expired key is free again: deleted here, not only by the hourly prune, so it never answers
      // an old request's answer.
      await tx.query(
        `DELETE FROM idempotent_creates
         WHERE organization_id = $1 AND idempotency_key = $2 AND created_at <= now() - make_interval(hours => $3)`,
        [organizationId, key, KEPT_HOURS],
      );
      const claimed = await tx.query(
        `INSERT INTO idempotent_creates (organization_id, idempotency_key, request_sha256) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, idempotency_key) DO NOTHING RETURNING 1`,
        [organizationId, key, digest],
      );
      if (claimed.rows.length > 0) return 'claimed';
      // A statement of its own: it sees the row committed while the INSERT waited (READ COMMITTED).
      const { rows } = await tx.query<{ request_sha256: Uint8Array; answer_body: string | null }>(
        `SELECT request_sha256, answer_body FROM idempotent_creates WHERE organization_id = $1 AND idempotency_key = $2`,
        [organizationId, key],
      );
      const row = rows[0];
      const answer = row?.answer_body ?? undefined;
      return { requestSha256: row?.request_sha256 ?? new Uint8Array(), answer: answer === undefined ? undefined : () => answer };
    },
    async keep(tx, key, answer) {
      await tx.query(
        `UPDATE idempotent_creates SET answer_status = 201, answer_body = $3
         WHERE organization_id = $1 AND idempotency_key = $2`,
        [organizationId, key, answer],
      );
    },
  };
}

/** Deletes the advertisers' keys older than KEPT_HOURS (the management routes' hourly prune). */
export async function pruneIdempotentCreates(db: SqlExecutor): Promise<void> {
  await db.query(`DELETE FROM idempotent_creates WHERE created_at <= now() - make_interval(hours => $1)`, [KEPT_HOURS]);
}
