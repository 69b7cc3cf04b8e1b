import { z } from 'zod';
import { textLine } from './fieldSchemas.js';
import { pageQueryFields, refineOneStart } from '../http/keysetPaging.js';
import { queryParams } from '../http/queryParams.js';
import { flightTime, withFlightOrder } from './flightSchema.js';
import { lineItemInput } from './lineItemSchemas.js';
import { asciiLowerCase, normalizedTerm, objectiveAliases } from './valueNormalization.js';
import { campaignStatusAliases, createdCampaignStatusNames } from './statusTransitions.js';

/** The most code points a campaign name may have (a duplicate's default name is cut to it). */
export const CAMPAIGN_NAME_MAX = 200;

/**
 * CampaignInput: the body of POST campaigns and the campaign part of compose and validate.
 * A new campaign always starts paused, so the only statuses accepted here are draft and paused.
 */
export const campaignInput = withFlightOrder(
  z.strictObject({
    name: textLine(CAMPAIGN_NAME_MAX),
    brand_name: textLine(200),
    user_id: z.uuid(),
    objective: normalizedTerm(objectiveAliases).nullable().optional(),
    status: z
      .string()
      .trim()
      .overwrite(asciiLowerCase)
      .pipe(z.enum(createdCampaignStatusNames, { error: `a new campaign starts paused: send ${createdCampaignStatusNames.join(', ')} or nothing` }))
      .optional(),
    /** The flight, [starts_at, ends_at): serving stays inside it; no bound means open on that side. */
    starts_at: flightTime.nullable().optional(),
    ends_at: flightTime.nullable().optional(),
  }),
);
export type CampaignInput = z.output<typeof campaignInput>;

export const composeBody = z.strictObject({ campaign: campaignInput, line_item: lineItemInput });
export type ComposeInput = z.output<typeof composeBody>;

/** The compose shape with either part optional: validate checks whatever it is given. */
export const validateBody = z
  .strictObject({ campaign: campaignInput.optional(), line_item: lineItemInput.optional() })
  .refine((body) => body.campaign !== undefined || body.line_item !== undefined, 'send campaign, line_item or both');
export type ValidateInput = z.output<typeof validateBody>;

export const campaignPatch = z
  .strictObject({
    name: textLine(CAMPAIGN_NAME_MAX).optional(),
    brand_name: textLine(200).optional(),
    objective: normalizedTerm(objectiveAliases).nullable().optional(),
    status: normalizedTerm(campaignStatusAliases).optional(),
    starts_at: flightTime.nullable().optional(),
    ends_at: flightTime.nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'send at least one of name, brand_name, objective, status, starts_at, ends_at');
export type CampaignPatch = z.output<typeof campaignPatch>;

export const duplicateBody = z.strictObject({ name: textLine(CAMPAIGN_NAME_MAX).optional() });

/**
 * POST activate's optional body. The spec shows none and its rule is that every line item becomes
 * active, which stays the default. `keep_line_items_paused: true` leaves paused line items paused in
 * the same transaction, so that no serve sees them active (ad-ops' "enable the campaign, not its
 * paused ad groups", as in Google Ads or DV360): pausing them again afterwards left a moment to serve.
 */
export const activateBody = z.strictObject({ keep_line_items_paused: z.boolean().optional() });
export type ActivateInput = z.output<typeof activateBody>;

/**
 * GET campaigns' query. status is read as every status input is (any case, draft -> paused, the
 * spec's value normalization); an empty `status=` (a form's empty select) is no filter, as an empty
 * `campaign_ids=` is in reporting.
 */
export const campaignListQuery = queryParams({
  status: z.preprocess((status) => (status === '' ? undefined : status), normalizedTerm(campaignStatusAliases).optional()),
  ...pageQueryFields(z.uuid()),
}).superRefine(refineOneStart);
