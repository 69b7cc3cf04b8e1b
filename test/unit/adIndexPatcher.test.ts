import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildAdIndex, type IndexBuildDeps } from '../../src/serving/adIndex.js';
import { AdIndexPatcher } from '../../src/serving/adIndexPatcher.js';
import type { CatalogRows, CreativeRow, LineItemRow } from '../../src/serving/catalogQueries.js';
import { convertToUsd } from '../../src/money/usdRates.js';

const deps: IndexBuildDeps = {
  userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
  spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
  statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
  toUsd: convertToUsd,
};
const noRows: CatalogRows = { tokens: [], placements: [], lineItems: [], creatives: [] };
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** 10,000 line items in 2,000 campaigns; each campaign's five share a keyword of their own. */
async function catalog() {
  const lineItems: LineItemRow[] = [];
  const creatives: CreativeRow[] = [];
  const campaigns = Array.from({ length: 2000 }, () => randomUUID());
  campaigns.forEach((campaignId, c) => {
    for (let k = 0; k < 5; k++) {
      const id = randomUUID();
      lineItems.push({
        id, campaign_id: campaignId, brand_name: 'Brand', bid_type: 'CPC', bid_value: '1', budget_daily: '100', budget_currency: 'USD', budget_lifetime: null, budget_pacing: 'asap',
        frequency_cap: null, starts_at: null, ends_at: null, targeting: { keywords: { include: [`word${c}`] } },
      });
      creatives.push({ id: randomUUID(), line_item_id: id, title: 'Title', body: 'Body', cta: 'Shop', destination_url: 'https://example.com', image_url: null });
    }
  });
  const { index } = await buildAdIndex('v1', { tokens: [], placements: [], lineItems, creatives }, deps);
  return { index, campaigns, lineItems };
}

describe('the index patcher', () => {
  it('makes its maps a step a turn after the start, and a patch meanwhile finds every line item and keyword as with maps made at once', async () => {
    const { index, campaigns, lineItems } = await catalog();
    const patcher = new AdIndexPatcher(index, deps);
    const remembered = patcher.rememberAside();
    await turn();
    // The last campaign's line items are the last the steps reach: not yet remembered.
    const last = campaigns.at(-1)!;
    const patch = patcher.apply({ tokenHashes: [], placementIds: [], lineItemIds: [], campaignIds: [last] }, noRows, 'v2');
    expect(patch.removed.map((entry) => entry.id).sort()).toEqual(lineItems.filter((row) => row.campaign_id === last).map((row) => row.id).sort());
    expect(index.lineItems).toHaveLength(9_995);
    // Its keyword had no other user: dropped, as it is when every line item was counted once.
    expect(index.phrases.some((phrase) => phrase.words[0] === 'word1999')).toBe(false);
    await remembered;
    const first = lineItems[0]!;
    const again = patcher.apply({ tokenHashes: [], placementIds: [], lineItemIds: [], campaignIds: [first.campaign_id] }, noRows, 'v3');
    expect(again.removed).toHaveLength(5);
    expect(index.phrases.some((phrase) => phrase.words[0] === 'word0')).toBe(false);
    expect(index.lineItems).toHaveLength(9_990);
  });
});
