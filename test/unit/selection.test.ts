import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildAdIndex, type AdIndex } from '../../src/serving/adIndex.js';
import { rerank } from '../../src/serving/rerankInSteps.js';
import type { CatalogRows, CreativeRow, LineItemRow } from '../../src/serving/catalogQueries.js';
import { relevance, selectAd } from '../../src/serving/selectAd.js';
import { estimatedCtr, estimatedCvr, expectedValuePerImpression, type DeliveryStats } from '../../src/serving/expectedValue.js';
import { priceNanos } from '../../src/money/priceModels.js';
import type { SpendCounter } from '../../src/serving/spendPacing.js';
import { convertToUsd } from '../../src/money/usdRates.js';

const CERTIFIED = { publisherId: 'pub', certified: true };
const UNCERTIFIED = { publisherId: 'pub', certified: false };

interface Spec {
  bid_type?: string | null;
  bid_value?: string | null;
  budget_daily?: string | null;
  budget_currency?: string | null;
  targeting?: unknown;
  frequency_cap?: unknown;
  creatives?: number;
}

function catalog(specs: Spec[]) {
  const lineItems: LineItemRow[] = [];
  const creatives: CreativeRow[] = [];
  for (const spec of specs) {
    const id = randomUUID();
    lineItems.push({
      id,
      campaign_id: randomUUID(),
      brand_name: 'Brand',
      bid_type: spec.bid_type === undefined ? 'CPC' : spec.bid_type,
      bid_value: spec.bid_value === undefined ? '1' : spec.bid_value,
      budget_daily: spec.budget_daily === undefined ? '100' : spec.budget_daily,
      budget_currency: spec.budget_currency === undefined ? 'USD' : spec.budget_currency,
      targeting: spec.targeting ?? {},
      budget_lifetime: null,
      budget_pacing: 'asap',
      frequency_cap: spec.frequency_cap ?? null,
      starts_at: null,
      ends_at: null,
    });
    for (let i = 0; i < (spec.creatives ?? 1); i++) {
      creatives.push({ id: randomUUID(), line_item_id: id, title: `creative ${i}`, body: 'b', cta: 'c', destination_url: 'https://example.com/x', image_url: null });
    }
  }
  const rows: CatalogRows = { tokens: [], placements: [], lineItems, creatives };
  return { rows, ids: lineItems.map((row) => row.id) };
}

async function indexOf(specs: Spec[]) {
  const { rows, ids } = catalog(specs);
  const spend = new Map<string, SpendCounter>();
  const stats = new Map<string, DeliveryStats>();
  const { index, skipped } = await buildAdIndex('v1', rows, {
    userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
    spendCounterFor: (id) => spend.get(id) ?? spend.set(id, { nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }).get(id)!,
    statsFor: (id) => stats.get(id) ?? stats.set(id, { impressions: 0, clicks: 0, conversions: 0 }).get(id)!,
    toUsd: convertToUsd,
  });
  return { index, skipped, ids, spend, stats };
}

function pick(index: AdIndex, query: string, options: { placement?: string; certified?: boolean; response?: string; language?: string } = {}) {
  const selection = selectAd(index, options.placement ?? 'pl-1', options.certified === false ? UNCERTIFIED : CERTIFIED, {
    query,
    response: options.response ?? '',
    language: options.language,
    nowMs: Date.now(),
    evenShare: 1,
  });
  return selection?.lineItem.id;
}

describe('expected value per impression', () => {
  it('is bid/1000 for tCPM, bid x CTR for CPC and bid x CTR x CVR for CPA, from 1% and 2% priors', () => {
    const none = { impressions: 0, clicks: 0, conversions: 0 };
    expect(expectedValuePerImpression('tCPM', 5, none)).toBeCloseTo(0.005);
    expect(expectedValuePerImpression('CPC', 2, none)).toBeCloseTo(0.02);
    expect(expectedValuePerImpression('CPA', 100, none)).toBeCloseTo(100 * 0.01 * 0.02);
  });

  it('moves CTR and CVR from the priors towards what was observed (Beta smoothing)', () => {
    expect(estimatedCtr({ impressions: 800, clicks: 38, conversions: 0 })).toBeCloseTo(40 / 1000);
    expect(estimatedCtr({ impressions: 1_000_000, clicks: 0, conversions: 0 })).toBeLessThan(0.00001);
    expect(estimatedCvr({ impressions: 0, clicks: 50, conversions: 49 })).toBeCloseTo(50 / 100);
    expect(estimatedCtr({ impressions: 0, clicks: 1000, conversions: 0 })).toBe(1);
  });

  it('prices links in nano-USD: tCPM per impression, CPC and CPA per event', () => {
    expect(priceNanos('tCPM', 2.5)).toBe(2_500_000);
    expect(priceNanos('CPC', 1.25)).toBe(1_250_000_000);
    expect(priceNanos('CPA', 40)).toBe(40_000_000_000);
  });
});

describe('relevance', () => {
  it('adds half per matched include keyword, counting at most four', () => {
    expect([0, 1, 2, 4, 9].map(relevance)).toEqual([1, 1.5, 2, 3, 3]);
  });
});

describe('building the index', () => {
  it('leaves out line items that cannot be served, by reason', async () => {
    const { index, skipped } = await indexOf([
      { bid_type: null },
      { bid_value: '0' },
      { budget_daily: null },
      { budget_currency: 'XYZ' },
      { creatives: 0 },
      { targeting: { keywords: { include: ['!!!'] } } },
      { targeting: { keywords: 'not an object' } },
      { targeting: { dayparts: { timezone: 'UTC', windows: [{ days: ['funday'], start: '09:00', end: '17:00' }] } } },
      { frequency_cap: { impressions: 0, per: 'day' } },
      { frequency_cap: { impressions: 2, per: 'fortnight' } },
      {},
    ]);
    expect(index.lineItems).toHaveLength(1);
    expect(skipped).toEqual({ no_bid: 2, no_budget: 1, unknown_currency: 1, no_creative: 1, bad_targeting: 5 });
  });

  it('reads the stored targeting and frequency cap it checked', async () => {
    const { index } = await indexOf([
      {
        targeting: { keywords: { include: ['trail running'], exclude: ['tax'] }, placements: { exclude: ['pl-9'] }, languages: ['EN'], countries: { include: ['DE'] } },
        frequency_cap: { impressions: 3, per: 'day' },
      },
    ]);
    const [entry] = index.lineItems;
    expect(entry?.includePhrases.map((phrase) => phrase.words)).toEqual([['trail', 'running']]);
    expect(entry?.excludePhrases.map((phrase) => phrase.words)).toEqual([['tax']]);
    expect([entry?.placementsExclude, entry?.languages, entry?.countriesInclude]).toEqual([new Set(['pl-9']), new Set(['en']), new Set(['DE'])]);
    expect(entry?.frequencyCap?.impressions).toBe(3);
  });

  it('converts bids and budgets from the budget currency to USD', async () => {
    const { index } = await indexOf([{ bid_type: 'tCPM', bid_value: '10', budget_daily: '200', budget_currency: 'EUR' }]);
    expect(index.lineItems[0]).toMatchObject({ bidUsd: 10.35, priceNanos: 10_350_000, budgetNanos: 207_000_000_000 });
  });
});

describe('selection', () => {
  it('serves the highest expected value, and nothing when nothing is eligible', async () => {
    const { index, ids } = await indexOf([{ bid_value: '1' }, { bid_value: '3' }, { bid_type: 'tCPM', bid_value: '20' }]);
    expect(pick(index, 'anything')).toBe(ids[1]);
    const empty = await indexOf([]);
    expect(pick(empty.index, 'anything')).toBeUndefined();
  });

  it('gives uncertified placements CPC and CPA only', async () => {
    const { index, ids } = await indexOf([{ bid_type: 'tCPM', bid_value: '1000' }, { bid_value: '1' }, { bid_type: 'CPA', bid_value: '10' }]);
    expect(pick(index, 'x', { certified: true })).toBe(ids[0]);
    expect(pick(index, 'x', { certified: false })).toBe(ids[1]);
    const cpmOnly = await indexOf([{ bid_type: 'tCPM', bid_value: '1000', targeting: { keywords: { include: ['bikes'] } } }]);
    expect(pick(cpmOnly.index, 'bikes', { certified: false })).toBeUndefined();
  });

  it('requires an include keyword in the context, as a whole word or phrase, case-insensitively', async () => {
    const { index, ids } = await indexOf([{ targeting: { keywords: { include: ['mountain bike', 'ebike'] } } }]);
    expect(pick(index, 'Best MOUNTAIN   Bike?')).toBe(ids[0]);
    expect(pick(index, 'hi', { response: 'an eBike is' })).toBe(ids[0]);
    expect(pick(index, 'mountain biker')).toBeUndefined();
    expect(pick(index, 'ebikes')).toBeUndefined();
    expect(pick(index, 'mountain', { response: 'bike' })).toBeUndefined();
    expect(pick(index, 'bike mountain')).toBeUndefined();
  });

  it('matches keywords in any script', async () => {
    const { index, ids } = await indexOf([{ targeting: { keywords: { include: ['fahrräder', 'велосипед'] } } }]);
    expect(pick(index, 'Günstige Fahrräder')).toBe(ids[0]);
    expect(pick(index, 'купить велосипед')).toBe(ids[0]);
  });

  it('multiplies expected value by relevance', async () => {
    const { index, ids } = await indexOf([
      { bid_value: '1.4', targeting: { keywords: { include: ['tent'] } } },
      { bid_value: '1', targeting: { keywords: { include: ['tent', 'camping', 'hiking'] } } },
      { bid_value: '2.9' },
    ]);
    // 1.4 x 1.5 = 2.1 < 1 x 2.5 = 2.5 < 2.9 x 1 = 2.9
    expect(pick(index, 'tent camping hiking')).toBe(ids[2]);
    index.lineItems[2]!.spend.nanos = Number.MAX_SAFE_INTEGER;
    expect(pick(index, 'tent camping hiking')).toBe(ids[1]);
    expect(pick(index, 'tent')).toBe(ids[0]);
  });

  it('counts every include keyword found, wherever it stands in the line item\'s list', async () => {
    const { index, ids } = await indexOf([
      { bid_value: '1', targeting: { keywords: { include: ['alpha', 'beta', 'gamma', 'delta'] } } },
      { bid_value: '1.1', targeting: { keywords: { include: ['gamma', 'delta'] } } },
      { bid_value: '1.2', targeting: { keywords: { include: ['epsilon'] } } },
    ]);
    // With two of its keywords found, whichever two, the first scores 1 x 2 = 2 over the third's
    // 1.2 x 1.5 = 1.8; with one, 1.5. The second scores 1.1 x 2 = 2.2 while it is eligible.
    index.lineItems[1]!.spend.nanos = Number.MAX_SAFE_INTEGER;
    for (const query of ['alpha beta', 'beta gamma', 'gamma delta', 'alpha delta']) expect(pick(index, `${query} epsilon`), query).toBe(ids[0]);
    expect(pick(index, 'delta epsilon')).toBe(ids[2]);
    index.lineItems[1]!.spend.nanos = 0;
    expect(pick(index, 'gamma delta epsilon')).toBe(ids[1]);
  });

  it('lets exclude keywords win over include keywords and apply to untargeted line items', async () => {
    const { index, ids } = await indexOf([
      { bid_value: '5', targeting: { keywords: { include: ['tent'], exclude: ['recall notice'] } } },
      { bid_value: '4', targeting: { keywords: { exclude: ['tent'] } } },
      { bid_value: '1' },
    ]);
    expect(pick(index, 'tent')).toBe(ids[0]);
    expect(pick(index, 'tent', { response: 'there is a recall notice' })).toBe(ids[2]);
    expect(pick(index, 'something else')).toBe(ids[1]);
  });

  it('says why it chose the line item unless the context says no explanation is wanted (the usual serve)', async () => {
    const { index, ids } = await indexOf([{ targeting: { keywords: { include: ['mountain bike', 'ebike'] } } }]);
    const context = { query: 'A mountain bike or an ebike?', response: '', nowMs: Date.now(), evenShare: 1 };
    const explained = selectAd(index, 'pl-1', CERTIFIED, context);
    expect(explained?.lineItem.id).toBe(ids[0]);
    expect(explained?.match).toEqual({ by: 'keywords', keywords: ['mountain bike', 'ebike'] });
    const plain = selectAd(index, 'pl-1', CERTIFIED, { ...context, explain: false });
    expect(plain?.lineItem.id).toBe(ids[0]);
    expect(plain).not.toHaveProperty('match');
  });

  it('honours placement include and exclude lists', async () => {
    const { index, ids } = await indexOf([
      { bid_value: '9', targeting: { placements: { include: ['pl-a'] } } },
      { bid_value: '5', targeting: { placements: { exclude: ['pl-b'] } } },
      { bid_value: '1' },
    ]);
    expect(pick(index, 'x', { placement: 'pl-a' })).toBe(ids[0]);
    expect(pick(index, 'x', { placement: 'pl-c' })).toBe(ids[1]);
    expect(pick(index, 'x', { placement: 'pl-b' })).toBe(ids[2]);
  });

  it('honours language targeting; a serve without a language matches any', async () => {
    const { index, ids } = await indexOf([{ bid_value: '9', targeting: { languages: ['de'] } }, { bid_value: '1' }]);
    expect(pick(index, 'x', { language: 'de' })).toBe(ids[0]);
    expect(pick(index, 'x')).toBe(ids[0]);
    expect(pick(index, 'x', { language: 'en' })).toBe(ids[1]);
  });

  it('reads a withdrawn language code stored before targeting stored current ones (iw) as its current one (he)', async () => {
    // The serve's language comes canonical (serveSchemas.ts: iw -> he), so stored iw must be read as he.
    const { index, ids } = await indexOf([{ bid_value: '9', targeting: { languages: ['iw', 'IN'] } }, { bid_value: '1' }]);
    expect(pick(index, 'x', { language: 'he' })).toBe(ids[0]);
    expect(pick(index, 'x', { language: 'id' })).toBe(ids[0]);
    expect(pick(index, 'x', { language: 'iw' })).toBe(ids[1]);
  });

  it('skips line items whose spend today reached the budget', async () => {
    const { index, ids, spend } = await indexOf([{ bid_value: '9', budget_daily: '10' }, { bid_value: '1' }]);
    spend.get(ids[0]!)!.nanos = 9_999_999_999;
    expect(pick(index, 'x')).toBe(ids[0]);
    spend.get(ids[0]!)!.nanos = 10_000_000_000;
    expect(pick(index, 'x')).toBe(ids[1]);
  });

  it('re-ranks when the learned CTR changes', async () => {
    const { index, ids, stats } = await indexOf([{ bid_value: '2' }, { bid_type: 'tCPM', bid_value: '15' }]);
    expect(pick(index, 'x')).toBe(ids[0]);
    Object.assign(stats.get(ids[0]!)!, { impressions: 100_000, clicks: 100 });
    rerank(index);
    expect(pick(index, 'x')).toBe(ids[1]);
  });

  it('re-ranks the keyword lists too, not only the untargeted ones', async () => {
    const { index, ids, stats } = await indexOf([
      { bid_value: '2', targeting: { keywords: { include: ['shoes'] } } },
      { bid_value: '0.5', targeting: { keywords: { include: ['shoes'] } } },
      { bid_type: 'tCPM', bid_value: '40' },
    ]);
    // 0.02 x 1.5 for the first keyword line item loses to the untargeted 0.04.
    expect(pick(index, 'shoes')).toBe(ids[2]);
    Object.assign(stats.get(ids[1]!)!, { impressions: 800, clicks: 98 });
    rerank(index);
    // Now 0.5 x 10% = 0.05, x 1.5 for the keyword: it wins, though it ranked last in the keyword list before.
    expect(pick(index, 'shoes')).toBe(ids[1]);
  });

  it('breaks exact ties by an order redrawn at each rerank, so every tied line item gets its turn', async () => {
    const { index, ids } = await indexOf([{ bid_value: '2' }, { bid_value: '2' }]);
    const winners = new Set<string | undefined>();
    for (let i = 0; i < 50; i++) {
      rerank(index);
      winners.add(pick(index, 'x'));
    }
    expect(winners).toEqual(new Set(ids));
  });

  it('rotates the winning line item\u2019s creatives', async () => {
    const { index } = await indexOf([{ creatives: 3 }]);
    const titles = Array.from({ length: 6 }, () => selectAd(index, 'pl', CERTIFIED, { query: '', response: '', nowMs: Date.now(), evenShare: 1 })!.creative.render.title);
    expect(titles).toEqual(['creative 0', 'creative 1', 'creative 2', 'creative 0', 'creative 1', 'creative 2']);
  });
});
