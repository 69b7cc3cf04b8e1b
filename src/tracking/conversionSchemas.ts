import { z } from 'zod';
import { currencyCode } from '../money/currencyCode.js';
import { convertToUsd } from '../money/usdRates.js';
import { rfc3339Timestamp, wellFormedText } from '../management/fieldSchemas.js';

/**
 * The largest conversion value in USD (after conversion from its currency), and the largest
 * revenue_usd of an imported line. Revenue is kept in nano-USD as Int64 (at most 9.2e18, about
 * 9.2 billion USD), and the reporting rollups add a line item's conversions of a day and placement
 * into one Int64 too: a larger value would be refused by ClickHouse (a conversion lost after its 2xx)
 * or wrap to a negative revenue, and a ceiling near the Int64 limit would let nine conversions wrap a
 * report's sum. 1,000,000 USD (1e15 nano-USD, the figure of the bid ceiling) is stored exactly, and
 * takes 9,223 such conversions in one line item, placement and day to reach the limit of a sum.
 */
export const CONVERSION_VALUE_MAX_USD = 1_000_000;

/** POST /v1/advertiser/conversions: a conversion the advertiser's server reports against a click id. */
export const conversionBody = z
  .strictObject({
    /**
     * The `adsvc_click_id` the click redirect added to the destination URL. Lower-cased here because
     * a UUID's case means nothing but the conversion's event id is a hash of the id's text: a retry
     * with the id upper-cased (SQL Server, .NET) must be the same conversion, not a second one billed.
     */
    click_id: z.uuid().transform((id) => id.toLowerCase()),
    /** The conversion's value (order total, lead value), in `currency`; becomes revenue_usd. */
    value: z.number().nonnegative().optional(),
    currency: currencyCode.default('USD'),
    /** The advertiser's own id for the conversion (an order id): the same id for the same click counts once. */
    conversion_id: wellFormedText().trim().min(1).max(128).optional(),
    /** When the conversion happened (ISO 8601 with offset); defaults to when it is reported. */
    occurred_at: rfc3339Timestamp().optional(),
  })
  .superRefine(({ value, currency }, context) => {
    // Checked in USD, what is stored: the same ceiling whatever the currency.
    const usd = value === undefined ? undefined : convertToUsd(value, currency);
    if (usd !== undefined && !(usd <= CONVERSION_VALUE_MAX_USD)) {
      context.addIssue({ code: 'custom', path: ['value'], message: 'must be at most 1,000,000 USD once converted to USD' });
    }
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
  /** Why an attributed CPA conversion costs 0 (the event's `unbilled`), else null. */
  unbilled_reason: string | null;
}
