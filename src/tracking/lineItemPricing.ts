import { convertToUsd } from '../money/usdRates.js';
import { bidInUsd, billedEvent, priceNanos, type PriceModel } from '../money/priceModels.js';
import type { SqlExecutor } from '../store/postgres.js';
import { budgetsInNanos } from '../serving/adIndex.js';
import { campaignOf } from '../management/campaignTenancy.js';

/** A line item's current bid as events are charged: the same rule serving signs into its links. */
export interface LineItemPricing {
  lineItemId: string;
  campaignId: string;
  model: PriceModel;
  /** Per impression for tCPM (bid/1000), per click for CPC, per conversion for CPA; nano-USD. */
  priceNanos: number;
  /** Its daily and lifetime budgets in nano-USD (budgetsInNanos), undefined without a budget that can be converted: a conversion's billing ceilings (BillingCeiling.judgeAndStore). */
  budgets: { budgetNanos: number; lifetimeBudgetNanos: number } | undefined;
}

export type PricingProblem = 'not_found' | 'no_bid' | 'unknown_currency';

/**
 * The line item's current bid converted to USD (bid_value is in the budget's currency; USD when no
 * budget is set). With `organizationId`, only a line item of that organization's campaigns is found.
 */
export async function findLineItemPricing(
  db: SqlExecutor,
  lineItemId: string,
  organizationId?: string,
): Promise<LineItemPricing | PricingProblem> {
  const { rows } = await db.query<{
    campaign_id: string;
    bid_type: string | null;
    bid_value: string | null;
    budget_currency: string | null;
    budget_daily: string | null;
    budget_lifetime: string | null;
  }>(
    `SELECT li.campaign_id, li.bid_type, li.bid_value, li.budget_currency, li.budget_daily::text AS budget_daily, li.budget_lifetime::text AS budget_lifetime
     FROM line_items li
     WHERE li.id = $1
       AND ($2::uuid IS NULL OR EXISTS (
         SELECT 1 FROM campaigns c WHERE c.id = li.campaign_id AND ${campaignOf('$2::uuid', 'c')}))`,
    [lineItemId, organizationId ?? null],
  );
  const row = rows[0];
  if (!row) return 'not_found';
  const bid = bidInUsd(row, convertToUsd);
  if (typeof bid === 'string') return bid;
  const budgets = budgetsInNanos(row, convertToUsd);
  return { lineItemId, campaignId: row.campaign_id, model: bid.model, priceNanos: priceNanos(bid.model, bid.bidUsd), budgets: typeof budgets === 'string' ? undefined : budgets };
}

/** What one valid event of `type` costs under the line item's bid; conversions cost only on CPA. */
export function eventCost(type: 'impression' | 'click' | 'conversion', pricing: LineItemPricing): number {
  return billedEvent[pricing.model] === type ? pricing.priceNanos : 0;
}

/**
 * What one conversion of a click is priced at: the price signed into the click's link and kept with
 * it (clickhouse/0012), the one its ad won the auction with, whatever the line item bids now. A
 * click stored before that keeps none (0): it takes the line item's current bid while the line item
 * still bids the click's model, and nothing once it does not.
 */
export function clickPrice(click: { price_model: string; price_nanos: number }, current: LineItemPricing | PricingProblem): number {
  if (click.price_nanos > 0) return click.price_nanos;
  return typeof current === 'object' && current.model === click.price_model ? current.priceNanos : 0;
}
