import type { PriceModel } from '../money/priceModels.js';

/** Valid events of one line item over the learning window (30 days), as the estimators read them. */
export interface DeliveryStats {
  impressions: number;
  clicks: number;
  conversions: number;
}

/**
 * Beta priors for the rate estimates: a line item with no history is assumed to have a 1% CTR and a
 * 2% conversion rate per click, and these priors weigh as much as 200 impressions and 50 clicks of
 * evidence. Observed events move the estimate smoothly: (clicks + 2) / (impressions + 200).
 */
const CTR_PRIOR = { rate: 0.01, weight: 200 } as const;
const CVR_PRIOR = { rate: 0.02, weight: 50 } as const;

export function estimatedCtr(stats: DeliveryStats): number {
  return Math.min(1, (stats.clicks + CTR_PRIOR.rate * CTR_PRIOR.weight) / (stats.impressions + CTR_PRIOR.weight));
}

export function estimatedCvr(stats: DeliveryStats): number {
  return Math.min(1, (stats.conversions + CVR_PRIOR.rate * CVR_PRIOR.weight) / (stats.clicks + CVR_PRIOR.weight));
}

/**
 * What one impression of the line item is expected to earn, in USD, so that impression-, click- and
 * conversion-priced demand compete on one scale: tCPM bid/1000; CPC bid x CTR; CPA bid x CTR x CVR.
 */
export function expectedValuePerImpression(model: PriceModel, bidUsd: number, stats: DeliveryStats): number {
  switch (model) {
    case 'tCPM':
      return bidUsd / 1000;
    case 'CPC':
      return bidUsd * estimatedCtr(stats);
    case 'CPA':
      return bidUsd * estimatedCtr(stats) * estimatedCvr(stats);
  }
}
