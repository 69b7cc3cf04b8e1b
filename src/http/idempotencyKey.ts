import { z } from 'zod';
import { ApiError, zodDetails } from './errors.js';

/**
 * The `Idempotency-Key` header, on the event import and the creates (the advertiser's and the
 * operators'): 1 to 255 printable ASCII characters, no spaces (a UUID, a file name and date).
 */
const idempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces');

/** The request's key, undefined without the header; 400 bad_request on `Idempotency-Key` when it is malformed or sent twice. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parsed = idempotencyKey.safeParse(header);
  if (!parsed.success) {
    throw new ApiError('bad_request', 'the Idempotency-Key header is invalid', zodDetails(parsed.error).map((detail) => ({ ...detail, path: 'Idempotency-Key' })));
  }
  return parsed.data;
}
