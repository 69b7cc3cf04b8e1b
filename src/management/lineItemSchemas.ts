import { z } from 'zod';
import { currencyCode } from '../money/currencyCode.js';
import { billedEvent, smallestBid } from '../money/priceModels.js';
import { convertToUsd } from '../money/usdRates.js';
import { creativeList } from './creativeSchema.js';
import { moneyAmount, textLine } from './fieldSchemas.js';
import { targetingSchema } from './targetingSchema.js';
import { frequencyCapSchema } from './frequencyCapSchema.js';
import { asciiLowerCase, bidTypeAliases, lineItemStatuses, normalizedTerm, objectiveAliases, primaryKpiAliases } from './valueNormalization.js';

/**
 * The daily budget, an optional lifetime total in the same currency, and how the day's budget is
 * spent: even (spread over the UTC day, the default) or asap (as fast as traffic comes). The
 * currency is also the currency of the line item's bid_value.
 */
export const budgetBody = z.strictObject({
  daily: moneyAmount,
  currency: currencyCode,
  // null as well as absent: every budget read carries `lifetime: null` when unset, so a GET -> PUT
  // round trip (and a client that serializes its unset fields as null) must be taken.
  lifetime: moneyAmount.nullable().optional(),
  pacing: z.enum(['even', 'asap']).default('even'),
});
export type BudgetInput = z.output<typeof budgetBody>;
/** A budget as stored and shown: lifetime null when there is none. */
export interface Budget {
  daily: number;
  currency: string;
  lifetime: number | null;
  pacing: 'even' | 'asap';
}

export function storedBudget(input: BudgetInput): Budget {
  return { daily: input.daily, currency: input.currency, lifetime: input.lifetime ?? null, pacing: input.pacing };
}

/**
 * The most a bid_value may be, in the line item's currency (the budget's; USD without a budget).
 * Tracking links carry the price per event as whole nano-USD, exact only below 2^53 (about
 * 9,007,199 USD): a larger CPC or CPA bid could never be served. The cap is in the line item's own
 * currency, not in USD, so that no later change of the budget's currency can carry a stored bid past
 * that limit: 1,000,000 of the strongest supported currency (GBP, 1.245 USD) is 1,245,000 USD, and
 * a test keeps every rate in usdRates.ts under that limit. Bids stored before the cap keep working
 * as before: the index leaves any that cannot be priced out (price_out_of_range).
 */
export const BID_VALUE_MAX = 1_000_000;

export const bidsBody = z.strictObject({
  bid_type: normalizedTerm(bidTypeAliases),
  bid_value: moneyAmount.max(BID_VALUE_MAX, { error: "must be at most 1,000,000 (in the budget's currency)" }),
});
export type Bids = z.output<typeof bidsBody>;

/**
 * Why a bid is refused in `currency` (the budget's; USD without a budget): a bid below
 * smallestBid prices each billed event at 0 nano-USD, so the line item would serve for nothing and
 * no budget would ever stop it. Asked where a bid is set and where a budget's currency changes.
 */
export function zeroPricedBid(bids: Bids, currency: string): string | undefined {
  const smallest = smallestBid(bids.bid_type, currency, convertToUsd);
  if (smallest === undefined || bids.bid_value >= smallest) return undefined;
  return `must be at least ${smallest} ${currency} for a ${bids.bid_type} bid in ${currency}: a smaller one prices each ${billedEvent[bids.bid_type]} at 0 nano-USD`;
}

/**
 * LineItemInput: the line_item part of compose and the body of POST campaigns/:id/line-items.
 * Only title is required; budget and bids are required later, by activation.
 */
export const lineItemInput = z
  .strictObject({
    title: textLine(200),
    objective: normalizedTerm(objectiveAliases).nullable().optional(),
    primary_kpi: normalizedTerm(primaryKpiAliases).nullable().optional(),
    budget: budgetBody.optional(),
    bids: bidsBody.optional(),
    targeting: targetingSchema.optional(),
    frequency_cap: frequencyCapSchema.nullable().optional(),
    creatives: creativeList.optional(),
  })
  .superRefine((input, context) => {
    const problem = input.bids && zeroPricedBid(input.bids, input.budget?.currency ?? 'USD');
    if (problem) context.addIssue({ code: 'custom', path: ['bids', 'bid_value'], message: problem });
  });
export type LineItemInput = z.output<typeof lineItemInput>;

export const lineItemPatch = z
  .strictObject({
    title: textLine(200).optional(),
    objective: normalizedTerm(objectiveAliases).nullable().optional(),
    primary_kpi: normalizedTerm(primaryKpiAliases).nullable().optional(),
    status: z.string().trim().overwrite(asciiLowerCase).pipe(z.enum(lineItemStatuses)).optional(),
    frequency_cap: frequencyCapSchema.nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'send at least one of title, objective, primary_kpi, status, frequency_cap');
export type LineItemPatch = z.output<typeof lineItemPatch>;
