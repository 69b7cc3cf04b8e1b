import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { PRICE_MODELS } from '../money/priceModels.js';

/**
 * What a tracking link vouches for. Signed with HMAC-SHA256 (TRACKING_SECRET), so that no byte of a
 * billable event can be forged or altered: the price, the line item and the expiry are all covered.
 */
export const trackingClaimsSchema = z.object({
  /** serve id */
  s: z.string().min(1).max(64),
  /** campaign id */
  c: z.uuid(),
  /** line item id */
  l: z.uuid(),
  /** creative id */
  r: z.uuid(),
  /** placement id */
  p: z.string().min(1).max(128),
  /** publisher id */
  u: z.uuid(),
  /** price model: tCPM, CPC or CPA */
  m: z.enum(PRICE_MODELS),
  /** price in nano-USD: per impression for tCPM (bid/1000), per click for CPC, per conversion for CPA */
  n: z.number().int().nonnegative(),
  /** expiry, seconds since the epoch */
  e: z.number().int().positive(),
  /** serve time, milliseconds since the epoch */
  t: z.number().int().positive(),
  /** the serve's keyed user id (see userKey), when the publisher sent user.id */
  k: z.string().min(1).max(64).optional(),
});

export type TrackingClaims = z.infer<typeof trackingClaimsSchema>;

/**
 * The same schema with zod's generated fast path (z.compile): every pixel and click checks its
 * token's claims, and the interpreted parse was a third of the verification. Whatever the fast path
 * does not accept goes to the runtime parser, so both answer alike.
 */
const compiledClaimsSchema = z.compile(trackingClaimsSchema);

/** `<base64url(json claims)>.<base64url(hmac)>`; impression and click links share the token. */
export function signTrackingToken(claims: TrackingClaims, secret: string): string {
  const payload = Buffer.from(claimsJson(claims)).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

const quoted = JSON.stringify;

/**
 * `JSON.stringify(claims)` for claims in the schema's key order, byte for byte (the unit test says
 * so): written field by field it costs 40% less, and every serve signs one token.
 */
export function claimsJson(claims: TrackingClaims): string {
  const { s, c, l, r, p, u, m, n, e, t, k } = claims;
  const user = k === undefined ? '' : `,"k":${quoted(k)}`;
  return `{"s":${quoted(s)},"c":${quoted(c)},"l":${quoted(l)},"r":${quoted(r)},"p":${quoted(p)},"u":${quoted(u)},"m":${quoted(m)},"n":${quoted(n)},"e":${quoted(e)},"t":${quoted(t)}${user}}`;
}

export type TokenVerdict =
  | { valid: true; claims: TrackingClaims }
  | { valid: false; reason: 'bad_token' | 'expired_token'; claims?: TrackingClaims };

/** Checks the signature first, then the shape, then the expiry. */
export function verifyTrackingToken(token: string, secret: string, nowMs = Date.now()): TokenVerdict {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return { valid: false, reason: 'bad_token' };
  const expected = Buffer.from(mac(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { valid: false, reason: 'bad_token' };
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { valid: false, reason: 'bad_token' };
  }
  const parsed = compiledClaimsSchema.safeParse(decoded);
  if (!parsed.success) return { valid: false, reason: 'bad_token' };
  if (parsed.data.e * 1000 < nowMs) return { valid: false, reason: 'expired_token', claims: parsed.data };
  return { valid: true, claims: parsed.data };
}

function mac(payload: string, secret: string): string {
  return createHmac('sha256', macKey(secret)).update(payload).digest('base64url');
}

/** The secret as a key object, made once: a string key is converted and imported again on every createHmac. */
let keyedSecret: { secret: string; key: KeyObject } | undefined;

function macKey(secret: string): KeyObject {
  if (keyedSecret?.secret !== secret) keyedSecret = { secret, key: createSecretKey(secret, 'utf8') };
  return keyedSecret.key;
}
