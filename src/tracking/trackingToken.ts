import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { HMAC_SHA256_BYTES, hmacSha256, hmacSha256Key, type HmacKey } from './hmacSha256.js';
import { MAX_CLAIMS_BYTES, readClaims, writeClaims } from './trackingClaimsBytes.js';
import { trackingClaimsSchema, type TrackingClaims } from './trackingClaimsSchema.js';
import { holdsLoneSurrogate } from '../loneSurrogate.js';

export { trackingClaimsSchema, type TrackingClaims };

/**
 * The same schema with zod's generated fast path (z.compile), for format 1 tokens (format 2's claims
 * are checked as they are read, trackingClaimsBytes.ts). Whatever the fast path does not accept goes
 * to the runtime parser, so both answer alike.
 */
const compiledClaimsSchema = z.compile(trackingClaimsSchema);

// Signing and verifying are synchronous: one buffer serves every call.
const tokenBytes = Buffer.alloc(MAX_CLAIMS_BYTES + HMAC_SHA256_BYTES);
const expectedMac = Buffer.alloc(HMAC_SHA256_BYTES);
/** Longer than any token of format 2 can be: its bytes would not fit tokenBytes. */
const MAX_TOKEN_CHARS = Math.ceil((tokenBytes.length * 4) / 3);

/** The formats a token can be signed in (TRACKING_TOKEN_FORMAT); both always verify. */
export type TrackingTokenFormat = 1 | 2;

/**
 * A token of format 2: `base64url(claims || mac)`, the claims in bytes (trackingClaimsBytes.ts) and
 * their HMAC-SHA256 under the secret (32 bytes). Impression and click links share the token. About
 * 220 characters, against 420 for format 1, and a quarter of its cost to sign. Format 1 on request:
 * what versions before format 2 can read. `ids`: claimIdsBytes(c, l, r) of these claims, when the
 * caller keeps them (see writeClaims).
 */
export function signTrackingToken(claims: TrackingClaims, secret: string, format: TrackingTokenFormat = 2, ids?: Uint8Array): string {
  if (format === 1) return signFormat1(claims, secret);
  const length = writeClaims(claims, tokenBytes, ids);
  hmacSha256(hmacKeyOf(secret), tokenBytes, length, tokenBytes, length);
  return tokenBytes.toString('base64url', 0, length + HMAC_SHA256_BYTES);
}

export type TokenVerdict =
  | { valid: true; claims: TrackingClaims }
  | { valid: false; reason: 'bad_token' | 'expired_token'; claims?: TrackingClaims };

/** Checks the signature first, then the shape, then the expiry; tokens of both formats. */
export function verifyTrackingToken(token: string, secret: string, nowMs = Date.now()): TokenVerdict {
  if (token.includes('.')) return verifyFormat1(token, secret, nowMs);
  const length = macedLength(token, true);
  if (length === undefined) return { valid: false, reason: 'bad_token' };
  hmacSha256(hmacKeyOf(secret), tokenBytes, length, expectedMac, 0);
  if (!timingSafeEqual(expectedMac, tokenBytes.subarray(length, length + HMAC_SHA256_BYTES))) return { valid: false, reason: 'bad_token' };
  const claims = readClaims(tokenBytes, length);
  return claims === undefined ? { valid: false, reason: 'bad_token' } : unexpired(claims, nowMs);
}

/**
 * The claims a token carries, its signature not checked: what a tampered link says it is about,
 * for the audit trail only (never trusted for money). Undefined when nothing usable decodes.
 */
export function unverifiedTrackingClaims(token: string): TrackingClaims | undefined {
  if (token.includes('.')) {
    const parsed = trackingClaimsSchema.safeParse(format1Claims(token.split('.')[0] ?? ''));
    return parsed.success && wellFormed(parsed.data) ? parsed.data : undefined;
  }
  // Any spelling node decodes: a tampered link is recorded as what it says, not dropped.
  const length = macedLength(token, false);
  return length === undefined ? undefined : readClaims(tokenBytes, length);
}

/**
 * Whether the claims' free text (serve id, placement id, user key) holds no lone surrogate. A forged
 * format 1 payload can spell one in JSON (`"p":"x\ud800"`), which ClickHouse refuses to parse in the
 * spooled row: each such row stalled the pipeline while it was halved out and quarantined (try41 F5:
 * a 40 s flood of them kept every event from the reports for 8 minutes). Serving signs only
 * well-formed text, and format 2 decodes bytes as UTF-8 (a bad sequence becomes U+FFFD), so only an
 * unverified format 1 payload is checked: one with a lone surrogate decodes to nothing.
 */
function wellFormed({ s, p, k }: TrackingClaims): boolean {
  return !holdsLoneSurrogate(s) && !holdsLoneSurrogate(p) && (k === undefined || !holdsLoneSurrogate(k));
}

/**
 * Decodes a format 2 token into tokenBytes and answers the length of its claims (the MAC follows
 * them), or undefined. `canonical`: only the one base64url spelling of the bytes, as signed; node's
 * decoder also takes '+', '/', padding and stray bits in the last character, which would make
 * several valid links out of one.
 */
function macedLength(token: string, canonical: boolean): number | undefined {
  if (token.length > MAX_TOKEN_CHARS) return undefined;
  const written = tokenBytes.write(token, 0, 'base64url');
  if (written <= HMAC_SHA256_BYTES || (canonical && tokenBytes.toString('base64url', 0, written) !== token)) return undefined;
  return written - HMAC_SHA256_BYTES;
}

/** A signed format 1 payload's claims against the schema, then the expiry. */
function judged(decoded: unknown, nowMs: number): TokenVerdict {
  const parsed = compiledClaimsSchema.safeParse(decoded);
  return parsed.success ? unexpired(parsed.data, nowMs) : { valid: false, reason: 'bad_token' };
}

function unexpired(claims: TrackingClaims, nowMs: number): TokenVerdict {
  return claims.e * 1000 < nowMs ? { valid: false, reason: 'expired_token', claims } : { valid: true, claims };
}

/** The secret's HMAC state, made once: the pads are hashed per secret, not per token. */
let hmacKey: { secret: string; key: HmacKey } | undefined;

function hmacKeyOf(secret: string): HmacKey {
  if (hmacKey?.secret !== secret) hmacKey = { secret, key: hmacSha256Key(Buffer.from(secret, 'utf8')) };
  return hmacKey.key;
}

/*
 * Format 1, the JSON token, the only one versions before format 2 (adsvc 0.1.0 up to this change)
 * sign and read: `<base64url(JSON claims)>.<base64url(HMAC-SHA256 of that base64url text)>`.
 * Always verified, so that links served by an older instance count for their whole TTL
 * (TRACKING_LINK_TTL_SECONDS, at most 30 days); signed when TRACKING_TOKEN_FORMAT=1, so that an
 * older instance reads the links a newer one serves during a rolling upgrade or after a rollback.
 * Its payload starts with '{' and format 2's with byte 2, so no signed message means something in both.
 */
function signFormat1(claims: TrackingClaims, secret: string): string {
  const payload = Buffer.from(claimsJson(claims)).toString('base64url');
  return `${payload}.${format1Mac(payload, secret)}`;
}

const quoted = JSON.stringify;

/** `JSON.stringify(claims)` for claims in the schema's key order, byte for byte, as older versions sign them. */
function claimsJson(claims: TrackingClaims): string {
  const { s, c, l, r, p, u, m, n, e, t, k } = claims;
  const user = k === undefined ? '' : `,"k":${quoted(k)}`;
  return `{"s":${quoted(s)},"c":${quoted(c)},"l":${quoted(l)},"r":${quoted(r)},"p":${quoted(p)},"u":${quoted(u)},"m":${quoted(m)},"n":${quoted(n)},"e":${quoted(e)},"t":${quoted(t)}${user}}`;
}

function format1Mac(payload: string, secret: string): string {
  return createHmac('sha256', format1Key(secret)).update(payload).digest('base64url');
}

function verifyFormat1(token: string, secret: string, nowMs: number): TokenVerdict {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return { valid: false, reason: 'bad_token' };
  const expected = Buffer.from(format1Mac(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { valid: false, reason: 'bad_token' };
  const decoded = format1Claims(payload);
  return decoded === undefined ? { valid: false, reason: 'bad_token' } : judged(decoded, nowMs);
}

function format1Claims(payload: string): unknown {
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The secret as a key object, made once: a string key is converted and imported again on every createHmac. */
let keyedSecret: { secret: string; key: KeyObject } | undefined;

function format1Key(secret: string): KeyObject {
  if (keyedSecret?.secret !== secret) keyedSecret = { secret, key: createSecretKey(secret, 'utf8') };
  return keyedSecret.key;
}
