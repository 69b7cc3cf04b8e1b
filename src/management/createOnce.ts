import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { advertiserOf } from '../http/apiKeyAuth.js';
import { ApiError } from '../http/errors.js';
import { idempotencyKeyOf } from '../http/idempotencyKey.js';
import type { Postgres, SqlExecutor, TransactionExecutor } from '../store/postgres.js';

/** How long a create's key and answer are kept: a resend later than this creates again. */
const KEPT_HOURS = 24;

/** The header a resent create's answer carries: it is the first request's answer, nothing was created now. */
const REPLAYED_HEADER = 'Idempotent-Replayed';

const CREATED = 201;

/**
 * Answers a create (201 `{data}`) made by `create` in one transaction. With an `Idempotency-Key`
 * header the answer is kept with the key under the caller's organization and the SHA-256 of the
 * method, path and body, in the same transaction as what it creates (a crash keeps both or
 * neither): a resend with the key and the same request is answered that status and body again,
 * with `Idempotent-Replayed: true`, and creates nothing; the key with another request is refused 422
 * on `Idempotency-Key`. A resend while the first request still runs waits for it (on a server, for
 * the first transaction's uncommitted key, at most POSTGRES_LOCK_WAIT_MS, then 503; embedded, its
 * turn), then answers its answer, or, when the first one failed and kept nothing, creates. Only a
 * create is kept: a refusal (404, 422, 503) rolls back and the key with it, so the request corrected
 * or resent with the key runs again.
 */
export async function createOnce(db: Postgres, request: FastifyRequest, reply: FastifyReply, create: (tx: TransactionExecutor) => Promise<unknown>): Promise<FastifyReply> {
  const key = idempotencyKeyOf(request.headers['idempotency-key']);
  const organizationId = advertiserOf(request).organizationId;
  const answer = await db.transaction(async (tx) => {
    if (key === undefined) return { status: CREATED, body: JSON.stringify({ data: await create(tx) }), replayed: false };
    const digest = requestDigest(request);
    const kept = await claimKey(tx, organizationId, key, digest);
    if (kept) return { ...kept, replayed: true };
    const body = JSON.stringify({ data: await create(tx) });
    await tx.query(
      `UPDATE idempotent_creates SET answer_status = $3, answer_body = $4
       WHERE organization_id = $1 AND idempotency_key = $2`,
      [organizationId, key, CREATED, body],
    );
    return { status: CREATED, body, replayed: false };
  });
  if (answer.replayed) reply.header(REPLAYED_HEADER, 'true');
  // The kept text as it is, so that a resend's answer is byte for byte the first one.
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

/** Deletes the keys older than KEPT_HOURS (the management routes' hourly prune). */
export async function pruneIdempotentCreates(db: SqlExecutor): Promise<void> {
  await db.query(`DELETE FROM idempotent_creates WHERE created_at <= now() - make_interval(hours => $1)`, [KEPT_HOURS]);
}

/** The method, path (without the query) and parsed body: the same JSON sent again gives the same digest. */
function requestDigest(request: FastifyRequest): Buffer {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method}\n${path}\n${JSON.stringify(request.body ?? null)}`)
    .digest();
}

/**
 * Records the key for this request, or, when the key is already recorded (committed: on a server
 * the INSERT waits for a transaction that holds it uncommitted), returns the answer kept with it,
 * or refuses a request that is not the one first sent with it.
 */
async function claimKey(tx: SqlExecutor, organizationId: string, key: string, digest: Buffer): Promise<{ status: number; body: string } | undefined> {
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
  if (claimed.rows.length > 0) return undefined;
  // A statement of its own: it sees the row committed while the INSERT waited (READ COMMITTED).
  const { rows } = await tx.query<{ request_sha256: Uint8Array; answer_status: number | null; answer_body: string | null }>(
    `SELECT request_sha256, answer_status, answer_body FROM idempotent_creates WHERE organization_id = $1 AND idempotency_key = $2`,
    [organizationId, key],
  );
  const row = rows[0];
  // Gone between the two statements (the prune of a key sent again at its 24th hour): sent again, it is free.
  if (!row || row.answer_status === null || row.answer_body === null) {
    throw new ApiError('unavailable', 'this Idempotency-Key expired while it was checked; send the request again (the key is free now)');
  }
  if (!Buffer.from(row.request_sha256).equals(digest)) {
    throw new ApiError('validation_error', 'the Idempotency-Key was already used with another request (another body or route); send this one with a new key', [
      { path: 'Idempotency-Key', message: 'already used with another body' },
    ]);
  }
  return { status: row.answer_status, body: row.answer_body };
}
