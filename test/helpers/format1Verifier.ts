import { createHmac, timingSafeEqual } from 'node:crypto';
import { trackingClaimsSchema, type TrackingClaims } from '../../src/tracking/trackingToken.js';

/**
 * How versions before format 2 (adsvc 0.1.0 up to format 2) verify a tracking token, copied from
 * that code: format 1 only, `<base64url(JSON claims)>.<base64url(HMAC-SHA256 of that text)>`.
 * What an older instance in a rolling upgrade or after a rollback can read; undefined when it cannot.
 */
export function format1OnlyClaims(token: string, secret: string): TrackingClaims | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(createHmac('sha256', secret).update(payload).digest('base64url'));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const parsed = trackingClaimsSchema.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
