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
