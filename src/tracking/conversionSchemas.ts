import { z } from 'zod';
import { currencyCode } from '../money/currencyCode.js';
import { wellFormedText } from '../management/fieldSchemas.js';

/** POST /v1/advertiser/conversions: a conversion the advertiser's server reports against a click id. */
export const conversionBody = z.strictObject({
  /** The `adsvc_click_id` the click redirect added to the destination URL. */
  click_id: z.uuid(),
  /** The conversion's value (order total, lead value), in `currency`; becomes revenue_usd. */
  value: z.number().nonnegative().max(1e12).optional(),
  currency: currencyCode.default('USD'),
  /** The advertiser's own id for the conversion (an order id): the same id for the same click counts once. */
  conversion_id: wellFormedText().trim().min(1).max(128).optional(),
  /** When the conversion happened (ISO 8601 with offset); defaults to when it is reported. */
  occurred_at: z.iso.datetime({ offset: true }).optional(),
});

export type ConversionInput = z.output<typeof conversionBody>;

/** What the API answers for a conversion, new or replayed. */
export interface ConversionResult {
  id: string;
  click_id: string;
  campaign_id: string;
  line_item_id: string;
  revenue_usd: number;
  cost_usd: number;
  /** false when the click was invalid traffic or the conversion fell outside the attribution window. */
  attributed: boolean;
  /** null when attributed; otherwise why not: invalid_click or outside_window (the event's ivt reason). */
  reason: string | null;
}
