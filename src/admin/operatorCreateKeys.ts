import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { KEPT_HOURS, type CreateKeys } from '../http/createOnce.js';
import { ApiError } from '../http/errors.js';
import type { SqlExecutor } from '../store/postgres.js';

const SEAL_CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The operators' create keys (createOnce.ts) in `admin_idempotent_creates` (migrations/0022): one
 * scope for whoever holds the admin token, which is the deployment's one operator identity, as an
 * organization is the scope of all of its API keys. Not the token itself: changing it must not turn
 * a resend into a second organization.
 *
 * Three of these creates answer a secret shown once (an API key, a publisher's token), which the
 * service otherwise stores only as a hash (secretHash.ts). So a kept answer is sealed (AES-256-GCM)
 * under a key derived from the admin token and the Idempotency-Key, and the key itself is stored as
 * its SHA-256: the table, a backup or a read-only role alone holds no usable secret; opening an answer
 * takes the client's Idempotency-Key and the admin token, whose holder may make keys anyway. An answer
 * sealed under a previous admin token cannot be opened: 409 (the object exists; nothing is made again).
 */
export function operatorCreateKeys(adminToken: string): CreateKeys {
  return {
    async claim(tx, key, digest) {
      const keyHash = sha256(key);
      // An expired key is free again: deleted here, not only by the hourly prune, so it never answers
      // an old request's answer.
      await tx.query(
        `DELETE FROM admin_idempotent_creates
         WHERE idempotency_key_sha256 = $1 AND created_at <= now() - make_interval(hours => $2)`,
        [keyHash, KEPT_HOURS],
      );
      const claimed = await tx.query(
        `INSERT INTO admin_idempotent_creates (idempotency_key_sha256, request_sha256) VALUES ($1, $2)
         ON CONFLICT (idempotency_key_sha256) DO NOTHING RETURNING 1`,
        [keyHash, digest],
      );
      if (claimed.rows.length > 0) return 'claimed';
      // A statement of its own: it sees the row committed while the INSERT waited (READ COMMITTED).
      const { rows } = await tx.query<{ request_sha256: Uint8Array; answer_sealed: Uint8Array | null }>(
        `SELECT request_sha256, answer_sealed FROM admin_idempotent_creates WHERE idempotency_key_sha256 = $1`,
        [keyHash],
      );
      const sealed = rows[0]?.answer_sealed ?? undefined;
      return { requestSha256: rows[0]?.request_sha256 ?? new Uint8Array(), answer: sealed === undefined ? undefined : () => open(adminToken, key, Buffer.from(sealed)) };
    },
    async keep(tx, key, answer) {
      await tx.query(`UPDATE admin_idempotent_creates SET answer_sealed = $2 WHERE idempotency_key_sha256 = $1`, [sha256(key), seal(adminToken, key, answer)]);
    },
  };
}

/** Deletes the operators' keys older than KEPT_HOURS (the admin routes' hourly prune). */
export async function pruneOperatorCreates(db: SqlExecutor): Promise<void> {
  await db.query(`DELETE FROM admin_idempotent_creates WHERE created_at <= now() - make_interval(hours => $1)`, [KEPT_HOURS]);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The answer's key: neither the admin token nor the Idempotency-Key alone derives it. */
function sealKey(adminToken: string, key: string): Buffer {
  return createHmac('sha256', adminToken).update(`adsvc operator create answer\n${key}`).digest();
}

/** nonce, tag, ciphertext. */
function seal(adminToken: string, key: string, answer: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(SEAL_CIPHER, sealKey(adminToken, key), nonce);
  const text = Buffer.concat([cipher.update(answer, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), text]);
}

function open(adminToken: string, key: string, sealed: Buffer): string {
  const decipher = createDecipheriv(SEAL_CIPHER, sealKey(adminToken, key), sealed.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new ApiError(
      'conflict',
      'the create sent with this Idempotency-Key was made, but under another admin token, and its answer (which may hold a secret shown only once) cannot be read with this one: find what it made in the list (its created_at), revoke a key or token you cannot use, and send a new request with a new key',
    );
  }
}
