import { unverifiedTrackingClaims, verifyTrackingToken, type TrackingClaims } from './trackingToken.js';

/** Longer than any token serving signs; longer input is not worth an HMAC. */
const MAX_TOKEN_LENGTH = 2048;

export interface ReadToken {
  claims: TrackingClaims;
  /** '' for a verified, unexpired token. */
  ivt: '' | 'bad_token' | 'expired_token';
}

/**
 * The claims of a tracking link, verified or not. A token whose signature fails but whose payload
 * still decodes to well-formed claims is kept (as bad_token) so tampering shows up in the audit
 * trail of the placement and campaign it names; those claims are never trusted for money. A token
 * that decodes to nothing usable answers undefined: there is nothing to record.
 */
export function readTrackingToken(token: string, secret: string, nowMs: number): ReadToken | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const verdict = verifyTrackingToken(token, secret, nowMs);
  if (verdict.valid) return { claims: verdict.claims, ivt: '' };
  if (verdict.claims) return { claims: verdict.claims, ivt: verdict.reason };
  const claims = unverifiedTrackingClaims(token);
  return claims ? { claims, ivt: 'bad_token' } : undefined;
}
