import { z } from 'zod';

/**
 * The spec's "Value normalization" table, completed: every term an advertiser may send, and what
 * is stored and shown. Input is matched case-insensitively after trimming; anything else is 422.
 */
export const objectiveAliases = {
  awareness: 'awareness',
  brand_awareness: 'awareness',
  consideration: 'consideration',
  traffic: 'traffic',
  engagement: 'engagement',
  conversions: 'conversions',
} as const;

export const primaryKpiAliases = {
  impressions: 'CPM',
  clicks: 'CPC',
  conversions: 'CPA',
  cpm: 'CPM',
  cpc: 'CPC',
  cpa: 'CPA',
} as const;

/** tCPM is the service's impression price model: bid per thousand valid impressions. */
export const bidTypeAliases = {
  cpc: 'CPC',
  cpm: 'tCPM',
  tcpm: 'tCPM',
  cpa: 'CPA',
} as const;

const campaignStatuses = ['active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof campaignStatuses)[number];

export const lineItemStatuses = ['draft', 'active', 'paused', 'completed'] as const;
export type LineItemStatus = (typeof lineItemStatuses)[number];

export type Objective = (typeof objectiveAliases)[keyof typeof objectiveAliases];
export type PrimaryKpi = (typeof primaryKpiAliases)[keyof typeof primaryKpiAliases];
export type BidType = (typeof bidTypeAliases)[keyof typeof bidTypeAliases];

/**
 * Lower case of the ASCII letters only: JavaScript's lower case of the Kelvin sign K is k, so
 * 'clic\u212As' was taken as clicks (try44 F4). Every term is ASCII, so a term in any case is matched
 * and any other letter stays itself and is refused.
 */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** A string field that accepts the keys of `aliases` (any case) and yields their stored value. */
export function normalizedTerm<const Aliases extends Record<string, string>>(aliases: Aliases) {
  const accepted = Object.keys(aliases) as [keyof Aliases & string, ...(keyof Aliases & string)[]];
  return z
    .string()
    .trim()
    .overwrite(asciiLowerCase)
    .pipe(z.enum(accepted))
    .transform((term) => aliases[term] as Aliases[keyof Aliases]);
}
