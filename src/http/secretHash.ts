import { createHash, randomBytes } from 'node:crypto';

/** Keys and tokens are stored only as this hash; the plain value is shown once when it is made. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A new random secret with a readable prefix that says what it is (`ak_` API key, `pt_` publisher token). */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(24).toString('base64url');
}
