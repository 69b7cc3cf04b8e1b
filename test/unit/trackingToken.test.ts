import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claimsJson, signTrackingToken, trackingClaimsSchema, verifyTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';

const secret = 'test secret with ünïcödé, longer than one block of sha256 so that hmac hashes the key first';
const nowMs = Date.UTC(2026, 10, 23, 12);
const claims: TrackingClaims = {
  s: 'c2VydmUtaWQtMTIzNDU2',
  c: '7b0c1d9e-1111-4222-8333-444455556666',
  l: '8b0c1d9e-1111-4222-8333-444455556666',
  r: '9b0c1d9e-1111-4222-8333-444455556666',
  p: 'placement-1',
  u: 'ab0c1d9e-1111-4222-8333-444455556666',
  m: 'tCPM',
  n: 1_500_000,
  e: nowMs / 1000 + 3600,
  t: nowMs,
};

/** A token as the first version of the service made it: HMAC-SHA256 keyed with the secret string. */
function tokenOf(payloadObject: unknown, key = secret): string {
  const payload = Buffer.from(JSON.stringify(payloadObject)).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

describe('tracking tokens', () => {
  it('are signed as HMAC-SHA256 of the base64url claims under the secret, so tokens issued before still verify', () => {
    expect(signTrackingToken(claims, secret)).toBe(tokenOf(claims));
    expect(verifyTrackingToken(tokenOf({ ...claims, k: 'user-key' }), secret, nowMs)).toEqual({ valid: true, claims: { ...claims, k: 'user-key' } });
  });

  it('carry the claims as JSON.stringify writes them, byte for byte, whatever the strings hold', () => {
    const awkward: TrackingClaims = { ...claims, s: 'id"with\\odd', p: 'plä\ncement \u2028 😀', n: 0, k: 'key "quoted"' };
    for (const written of [claims, { ...claims, k: 'user-key' }, { ...claims, k: undefined }, awkward]) {
      expect(claimsJson(written)).toBe(JSON.stringify(written));
    }
    expect(verifyTrackingToken(signTrackingToken(awkward, secret), secret, nowMs)).toEqual({ valid: true, claims: awkward });
  });

  it('follow a change of secret', () => {
    const other = 'another secret';
    expect(verifyTrackingToken(tokenOf(claims, other), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    expect(verifyTrackingToken(tokenOf(claims, other), other, nowMs)).toEqual({ valid: true, claims });
    expect(verifyTrackingToken(tokenOf(claims), secret, nowMs)).toEqual({ valid: true, claims });
  });

  it('answer bad_token for a signed payload the claims schema refuses, and drop what it does not know', () => {
    const refused: unknown[] = [
      { ...claims, c: 'not-a-uuid' },
      { ...claims, m: 'CPV' },
      { ...claims, n: -1 },
      { ...claims, n: 1.5 },
      { ...claims, e: 0 },
      { ...claims, s: '' },
      { ...claims, s: 'x'.repeat(65) },
      { ...claims, k: null },
      { ...claims, t: '1' },
      [claims],
      null,
    ];
    for (const payload of refused) {
      expect(trackingClaimsSchema.safeParse(payload).success).toBe(false);
      expect(verifyTrackingToken(tokenOf(payload), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    }
    expect(verifyTrackingToken(tokenOf({ ...claims, extra: 1 }), secret, nowMs)).toEqual({ valid: true, claims });
  });

  it('answer expired_token with the claims once the expiry has passed', () => {
    expect(verifyTrackingToken(tokenOf(claims), secret, claims.e * 1000 + 1)).toEqual({ valid: false, reason: 'expired_token', claims });
  });
});
