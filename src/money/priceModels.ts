import type { Certification } from '../placements/placementRepository.js';
import { NANOS_PER_USD } from './nanoUsd.js';

/**
 * How demand pays: tCPM per thousand valid impressions, CPC per valid click, CPA per attributed
 * conversion. Serving ranks and signs prices with these rules, tracking charges with them.
 */
export const PRICE_MODELS = ['tCPM', 'CPC', 'CPA'] as const;
export type PriceModel = (typeof PRICE_MODELS)[number];

/** The one kind of valid event each price model pays for. */
export const billedEvent = { tCPM: 'impression', CPC: 'click', CPA: 'conversion' } as const satisfies Record<PriceModel, string>;

function isPriceModel(value: string | null): value is PriceModel {
  return (PRICE_MODELS as readonly (string | null)[]).includes(value);
}

/** Spec rule: uncertified (and revoked) placements get CPC and CPA demand only; certified ones tCPM too. */
export function eligiblePriceModels(certification: Certification): readonly PriceModel[] {
  return certification === 'certified' ? PRICE_MODELS : ['CPC', 'CPA'];
}

/** What the tracking link charges per billable event, in nano-USD: per impression for tCPM, per click for CPC, per conversion for CPA. */
export function priceNanos(model: PriceModel, bidUsd: number): number {
  return Math.round(model === 'tCPM' ? (bidUsd * NANOS_PER_USD) / 1000 : bidUsd * NANOS_PER_USD);
}

/**
 * The smallest bid_value (at most 6 decimals, in `currency`) whose events `priceNanos` prices at 1
 * nano-USD or more: a smaller positive bid prices every event at 0, bills nothing however much it
 * serves, and no budget ever binds it (try37 M2: tCPM 0.0001 KRW). Undefined for a currency without
 * a rate. Only currencies far below the dollar have one above the 0.000001 every amount has: tCPM
 * 0.000736 KRW, for one.
 */
export function smallestBid(model: PriceModel, currency: string, toUsd: (amount: number, currency: string) => number | undefined): number | undefined {
  const priced = (micros: number) => priceNanos(model, toUsd(micros / 1e6, currency) ?? 0) >= 1;
  if (toUsd(1, currency) === undefined) return undefined;
  // The price grows with the bid: double to a bid that prices, then halve the gap down to the first that does.
  let high = 1;
  while (!priced(high)) high *= 2;
  let low = high / 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (priced(middle)) high = middle;
    else low = middle;
  }
  return high / 1e6;
}

/** A line item's bid and budget columns as Postgres stores them. */
export interface StoredBid {
  bid_type: string | null;
  bid_value: string | null;
  budget_currency: string | null;
}

/** The currency of a line item's amounts: bid_value and the budget are in the budget's currency, USD when no budget is set. */
export function lineItemCurrency(row: Pick<StoredBid, 'budget_currency'>): string {
  return (row.budget_currency ?? 'USD').toUpperCase();
}

/** The line item's bid in USD, or why it has none that can be priced. */
export function bidInUsd(
  row: StoredBid,
  toUsd: (amount: number, currency: string) => number | undefined,
): { model: PriceModel; bidUsd: number } | 'no_bid' | 'unknown_currency' {
  if (!isPriceModel(row.bid_type) || row.bid_value === null) return 'no_bid';
  const bidUsd = toUsd(Number(row.bid_value), lineItemCurrency(row));
  return bidUsd === undefined ? 'unknown_currency' : { model: row.bid_type, bidUsd };
}
