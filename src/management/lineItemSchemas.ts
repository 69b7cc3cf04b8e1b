import { z } from 'zod';
import { currencyCode } from '../money/currencyCode.js';
import { creativeList } from './creativeSchema.js';
import { moneyAmount, textLine } from './fieldSchemas.js';
import { targetingSchema } from './targetingSchema.js';
import { bidTypeAliases, lineItemStatuses, normalizedTerm, objectiveAliases, primaryKpiAliases } from './valueNormalization.js';

/** The daily budget; its currency is also the currency of the line item's bid_value. */
export const budgetBody = z.strictObject({ daily: moneyAmount, currency: currencyCode });
export type Budget = z.output<typeof budgetBody>;

export const bidsBody = z.strictObject({ bid_type: normalizedTerm(bidTypeAliases), bid_value: moneyAmount });
export type Bids = z.output<typeof bidsBody>;

/**
 * LineItemInput: the line_item part of compose and the body of POST campaigns/:id/line-items.
 * Only title is required; budget and bids are required later, by activation.
 */
export const lineItemInput = z.strictObject({
  title: textLine(200),
  objective: normalizedTerm(objectiveAliases).nullable().optional(),
  primary_kpi: normalizedTerm(primaryKpiAliases).nullable().optional(),
  budget: budgetBody.optional(),
  bids: bidsBody.optional(),
  targeting: targetingSchema.optional(),
  creatives: creativeList.optional(),
});
export type LineItemInput = z.output<typeof lineItemInput>;

export const lineItemPatch = z
  .strictObject({
    title: textLine(200).optional(),
    objective: normalizedTerm(objectiveAliases).nullable().optional(),
    primary_kpi: normalizedTerm(primaryKpiAliases).nullable().optional(),
    status: z.string().trim().toLowerCase().pipe(z.enum(lineItemStatuses)).optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'send at least one of title, objective, primary_kpi, status');
export type LineItemPatch = z.output<typeof lineItemPatch>;
