import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAdIndex, rankOrder, type AdIndex } from '../../src/serving/adIndex.js';
import type { CatalogRows, CreativeRow, LineItemRow } from '../../src/serving/catalogQueries.js';
import { expectedValuePerImpression } from '../../src/serving/expectedValue.js';
import { rerankSteps } from '../../src/serving/rerankInSteps.js';
import { selectAd } from '../../src/serving/selectAd.js';
import { packageRoot } from '../../src/packageRoot.js';
import { convertToUsd } from '../../src/money/usdRates.js';
import type { SemanticModel } from '../../src/semantic/semanticModel.js';
import { realSemanticModel } from '../helpers/wordVectors.js';

const ANY_TIME = { nowMs: Date.now(), evenShare: 1 };
const CERTIFIED = { publisherId: 'pub', certified: true };
const UNCERTIFIED = { publisherId: 'pub', certified: false };
const folder = path.join(packageRoot, 'bench', 'semantic');

let model: SemanticModel;
beforeAll(() => {
  model = realSemanticModel();
}, 120_000);

/**
 * 1,200 line items opted into semantic matching (the evaluation's 30 categories, 40 copies each at
 * random bids, CPC and tCPM so both lists fill), a third of them with keywords too; clustered from
 * 256 rows, so both matrices are searched through clusters as at 100,000.
 */
async function catalog(): Promise<AdIndex> {
  const categories = JSON.parse(readFileSync(path.join(folder, 'lineItems.json'), 'utf8')) as { keywords: string[]; title: string; body: string }[];
  const lineItems: LineItemRow[] = [];
  const creatives: CreativeRow[] = [];
  for (let copy = 0; copy < 40; copy++) {
    categories.forEach((category, i) => {
      const id = randomUUID();
      const keywords = i % 3 === 0 ? { keywords: { include: category.keywords.slice(0, 2) } } : {};
      lineItems.push({
        id, campaign_id: randomUUID(), brand_name: 'Brand', bid_type: copy % 2 === 0 ? 'CPC' : 'tCPM', bid_value: (0.5 + Math.random()).toFixed(4), budget_daily: '100', budget_currency: 'USD',
        budget_lifetime: null, budget_pacing: 'asap', frequency_cap: null, starts_at: null, ends_at: null, targeting: { ...keywords, semantic: { enabled: true, min_similarity: 0.45 } },
      });
      creatives.push({ id: randomUUID(), line_item_id: id, title: category.title, body: category.body, cta: 'Shop', destination_url: 'https://example.com', image_url: null });
    });
  }
  const rows: CatalogRows = { tokens: [], placements: [], lineItems, creatives };
  const { index } = await buildAdIndex('v1', rows, {
    userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
    spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
    statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
    toUsd: convertToUsd,
    semanticModel: model,
    semanticClusteredFrom: 256,
  });
  return index;
}

const conversations = () =>
  readFileSync(path.join(folder, 'conversations.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(' | ') && !line.startsWith('#'))
    .slice(0, 150)
    .map((line) => line.split(' | ') as [string, string, string]);

/** The line item served next to each conversation, on a certified and an uncertified placement. */
function adsOf(index: AdIndex, talks: Array<[string, string, string]>): Array<string | undefined> {
  return [CERTIFIED, UNCERTIFIED].flatMap((placement) => talks.map(([, query, response]) => selectAd(index, 'pl', placement, { ...ANY_TIME, query, response })?.lineItem.id));
}

/** Learned delivery: every CPC line item's click-through rate redrawn, so the rerank moves most of them. */
function learn(index: AdIndex): void {
  for (const entry of index.lineItems) entry.stats = { impressions: 10_000, clicks: Math.floor(Math.random() * 2_000), conversions: 0 };
}

describe('a rerank in steps', () => {
  it('runs in bounded steps during which serves select exactly as before it, then serves as a fresh layout of the new order', async () => {
    const index = await catalog();
    expect(index.semanticMatrices?.certified.clustered && index.semanticMatrices.uncertified.clustered).toBe(true);
    const talks = conversations();
    const before = adsOf(index, talks);
    expect(before.filter((id) => id !== undefined).length).toBeGreaterThan(60);
    learn(index);
    const steps = rerankSteps(index, 64);
    let count = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) {
      count += 1;
      // Between steps (a turn of the event loop each in the service), serving has not moved.
      expect(adsOf(index, talks)).toEqual(before);
    }
    expect(step.value).toBe(true);
    // 1,200 line items in steps of 64: the expected values, the sort, the lists and each matrix's rows.
    expect(count).toBeGreaterThan(60);
    const after = adsOf(index, talks);
    expect(after).not.toEqual(before);
    // Every list ranked by the new expected values, and the matrices laid out as fill() lays out that order.
    for (const entry of index.lineItems) expect(entry.expectedValue).toBe(expectedValuePerImpression(entry.model, entry.bidUsd, entry.stats));
    const lists = [index.semantic, ...index.phrases.map((phrase) => phrase.includedBy)].flatMap((ranked) => [ranked.certified, ranked.uncertified]);
    for (const list of lists) for (let i = 1; i < list.length; i++) expect(rankOrder(list[i - 1]!, list[i]!)).toBeLessThan(0);
    for (const list of ['certified', 'uncertified'] as const) expect(index.semanticMatrices![list].entries).toEqual(index.semantic[list]);
    index.semanticMatrices!.certified.fill(index.semantic.certified);
    index.semanticMatrices!.uncertified.fill(index.semantic.uncertified);
    expect(adsOf(index, talks)).toEqual(after);
  }, 60_000);

  it('changes nothing when a matrix is laid out again before its last step (trained clusters arrived): the caller reranks again', async () => {
    const index = await catalog();
    learn(index);
    let yields = 0;
    for (const _ of rerankSteps(index, 64)) yields += 1;
    const talks = conversations();
    const before = adsOf(index, talks);
    const values = index.lineItems.map((entry) => entry.expectedValue);
    const order = index.semantic.certified.slice();
    learn(index);
    const steps = rerankSteps(index, 64);
    // Up to the last step, which would put it all in place.
    for (let i = 0; i < yields; i++) steps.next();
    index.semanticMatrices!.uncertified.fill(index.semantic.uncertified);
    let step = steps.next();
    while (!step.done) step = steps.next();
    expect(step.value).toBe(false);
    expect(index.lineItems.map((entry) => entry.expectedValue)).toEqual(values);
    expect(index.semantic.certified).toEqual(order);
    expect(adsOf(index, talks)).toEqual(before);
  }, 60_000);
});
