import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';
import { idempotencyKeyOf } from './idempotencyKey.js';
import type { Postgres, SqlExecutor, TransactionExecutor } from '../store/postgres.js';

/** How long a create's key and answer are kept: a resend later than this creates again. */
export const KEPT_HOURS = 24;

/** The header a resent create's answer carries: it is the first request's answer, nothing was created now. */
const REPLAYED_HEADER = 'Idempotent-Replayed';

const CREATED = 201;

/** A key recorded by an earlier request, committed: its request's digest and its answer. */
interface KeptCreate {
  requestSha256: Uint8Array;
  /** The kept answer's text; undefined when the row was gone by the time it was read. */
  answer: (() => string) | undefined;
}

/**
 * Where one kind of caller keeps its keys (the advertiser's organization: management; the operators:
 * admin), each in its own table (createKeyTable.ts). Both run inside the create's transaction.
 */
export interface CreateKeys {
  /**
   * Records the key for this request ('claimed'), freeing it first when it expired, or, when it is
   * already recorded (committed: on a server the insert waits for a transaction that holds it
   * uncommitted), returns what was kept with it.
   */
  claim(tx: SqlExecutor, key: string, digest: Buffer): Promise<KeptCreate | 'claimed'>;
  /** Keeps the answer with the key this request claimed. */
  keep(tx: SqlExecutor, key: string, answer: string): Promise<void>;
}

/**
 * Answers a create (201 `{data}`) made by `create` in one transaction. With an `Idempotency-Key`
 * header the answer is kept with the key under the caller's scope (`keys`) and the SHA-256 of the
 * method, path and body, in the same transaction as what it creates (a crash keeps both or
 * neither): a resend with the key and the same request is answered that status and body again,
 * with `Idempotent-Replayed: true`, and creates nothing; the key with another request is refused 422
 * on `Idempotency-Key`. A resend while the first request still runs waits for it (on a server, for
 * the first transaction's uncommitted key, at most POSTGRES_LOCK_WAIT_MS, then 503; embedded, its
 * turn), then answers its answer, or, when the first one failed and kept nothing, creates. Only a
 * create is kept: a refusal (404, 409, 422, 503) rolls back and the key with it, so the request
 * corrected or resent with the key runs again.
 */
export async function createOnce(db: Postgres, keys: CreateKeys, request: FastifyRequest, reply: FastifyReply, create: (tx: TransactionExecutor) => Promise<unknown>): Promise<FastifyReply> {
  const key = idempotencyKeyOf(request.headers['idempotency-key']);
  const answer = await db.transaction(async (tx) => {
    if (key === undefined) return { body: JSON.stringify({ data: await create(tx) }), replayed: false };
    const digest = requestDigest(request);
    const kept = await keys.claim(tx, key, digest);
    if (kept !== 'claimed') return { body: keptAnswer(kept, digest), replayed: true };
    const body = JSON.stringify({ data: await create(tx) });
    await keys.keep(tx, key, body);
    return { body, replayed: false };
  });
  if (answer.replayed) reply.header(REPLAYED_HEADER, 'true');
  // The kept text as it is, so that a resend's answer is byte for byte the first one.
  return reply.code(CREATED).type('application/json; charset=utf-8').send(answer.body);
}

/** The method, path (without the query) and parsed body: the same JSON sent again gives the same digest. */
function requestDigest(request: FastifyRequest): Buffer {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method}\n${path}\n${JSON.stringify(request.body ?? null)}`)
    .digest();
}

/** The answer kept for this request, or the refusal of a request that is not the one first sent with its key. */
function keptAnswer(kept: KeptCreate, digest: Buffer): string {
  // Gone between the claim's statements (the prune of a key sent again at its 24th hour): sent again, it is free.
  if (kept.answer === undefined) {
    throw new ApiError('unavailable', 'this Idempotency-Key expired while it was checked; send the request again (the key is free now)');
  }
  if (!Buffer.from(kept.requestSha256).equals(digest)) {
    throw new ApiError('validation_error', 'the Idempotency-Key was already used with another request (another body or route); send this one with a new key', [
      { path: 'Idempotency-Key', message: 'already used with another body' },
    ]);
  }
  return kept.answer();
}
