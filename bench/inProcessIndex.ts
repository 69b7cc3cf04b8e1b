import { buildAdIndex, type AdIndex } from '../src/serving/adIndex.js';
import type { CatalogRows } from '../src/serving/catalogQueries.js';
import { convertToUsd } from '../src/money/usdRates.js';
import { BrandSafety } from '../src/semantic/brandSafety.js';
import type { SemanticModel } from '../src/semantic/semanticModel.js';
import type { GeneratedCampaign } from './catalogGenerator.js';

/**
 * The ad index of a generated catalog, built in process with no stores (no spend, no delivery
 * stats, no frequency counts): what the in-process benches (serveMicroBench, semanticServeMicroBench)
 * select from.
 */
function catalogRowsOf(campaigns: GeneratedCampaign[], placements: CatalogRows['placements']): CatalogRows {
  return {
    tokens: [],
    placements,
    lineItems: campaigns.flatMap((campaign) =>
      campaign.lineItems.map(({ id, stored }) => ({
        id,
        campaign_id: campaign.id,
        brand_name: campaign.input.brand_name,
        bid_type: stored.bids?.bid_type ?? null,
        bid_value: stored.bids?.bid_value === undefined ? null : String(stored.bids.bid_value),
        budget_daily: stored.budget?.daily === undefined ? null : String(stored.budget.daily),
        budget_currency: stored.budget?.currency ?? null,
        budget_lifetime: null,
        budget_pacing: stored.budget?.pacing ?? 'even',
        targeting: stored.targeting ?? {},
        frequency_cap: null,
        starts_at: null,
        ends_at: null,
      })),
    ),
    creatives: campaigns.flatMap((campaign) =>
      campaign.lineItems.flatMap(({ id, stored, creativeIds }) =>
        (stored.creatives ?? []).map((creative, index) => ({ id: creativeIds[index]!, line_item_id: id, title: creative.title, body: creative.body, cta: creative.cta, destination_url: creative.destination_url, image_url: creative.image_url ?? null })),
      ),
    ),
  };
}

/** `clusteredFrom`: Infinity compares every opted-in line item (exact), as semanticRecall's reference. */
export async function inProcessIndex(campaigns: GeneratedCampaign[], placements: CatalogRows['placements'], model: SemanticModel, clusteredFrom?: number): Promise<AdIndex> {
  const { index } = await buildAdIndex('bench', catalogRowsOf(campaigns, placements), {
    userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
    spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
    statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
    toUsd: convertToUsd,
    semanticModel: model,
    brandSafety: new BrandSafety(model),
    ...(clusteredFrom !== undefined ? { semanticClusteredFrom: clusteredFrom } : {}),
  });
  return index;
}
