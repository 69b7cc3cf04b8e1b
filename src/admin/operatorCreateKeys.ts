import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { CreateKeys } from '../http/createOnce.js';
import { keysIn, type CreateKeyTable } from '../http/createKeyTable.js';
import { ApiError } from '../http/errors.js';

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
 * The key's SHA-256 is a plain one, so the table's holder can confirm a key that can be guessed (a
 * file name and a date): which creates a script made, not their secrets (docs/operating.md).
 */
export const operatorCreateKeyTable: CreateKeyTable = {
  name: 'admin_idempotent_creates',
  scopeColumns: [],
  keyColumn: 'idempotency_key_sha256',
  answerColumn: 'answer_sealed',
};

export function operatorCreateKeys(adminToken: string): CreateKeys {
  return keysIn<Uint8Array>(operatorCreateKeyTable, [], {
    key: sha256,
    seal: (key, answer) => seal(adminToken, key, answer),
    open: (key, sealed) => open(adminToken, key, Buffer.from(sealed)),
  });
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
