import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildAdIndex, type AdIndex } from '../src/serving/adIndex.js';
import type { CatalogRows } from '../src/serving/catalogQueries.js';
import { selectAd } from '../src/serving/selectAd.js';
import { WordScan } from '../src/serving/contextWords.js';
import { convertToUsd } from '../src/money/usdRates.js';
import { packageRoot } from '../src/packageRoot.js';
import { BrandSafety } from '../src/semantic/brandSafety.js';
import { lineItemVector, SemanticModel, similarity } from '../src/semantic/semanticModel.js';
import { writeWordVectorsIfMissing } from '../src/semantic/buildWordVectors.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';

/** No flight, pacing share or daypart in play: these line items only test matching. */
const ANY_TIME = { nowMs: Date.now(), evenShare: 1 };

/**
 * Offline evaluation of semantic matching on bench/semantic (see its README.md): precision@1, fill
 * and precision at equal fill for keyword-only, semantic-only and hybrid, with 95 % Wilson
 * intervals. Runs the real index and selectAd for keyword-only and hybrid. Usage:
 *   npx tsx bench/semanticEval.ts
 */

interface LineItemSpec {
  category: string;
  keywords: string[];
  title: string;
  body: string;
}
interface Conversation {
  label: string;
  query: string;
  answer: string;
}

const folder = path.join(packageRoot, 'bench', 'semantic');
const specs = JSON.parse(readFileSync(path.join(folder, 'lineItems.json'), 'utf8')) as LineItemSpec[];
const conversations: Conversation[] = readFileSync(path.join(folder, 'conversations.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const [label, query, answer] = line.split(' | ');
    return { label: label!, query: query!, answer: answer! };
  });
const fits = (c: Conversation) => c.label !== 'none' && c.label !== 'sensitive';
// Thresholds are chosen on the even rows and reported on the odd rows, so the choice does not flatter the figures.
const tuning = conversations.filter((_, i) => i % 2 === 0);
const heldOut = conversations.filter((_, i) => i % 2 === 1);

writeWordVectorsIfMissing();
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);
// Every mode is scored as served: with brand safety on (the default).
const brandSafety = new BrandSafety(model);

async function indexFor(semantic: { enabled: boolean; min_similarity: number } | undefined, guarded: boolean): Promise<{ index: AdIndex; categoryOf: Map<string, string> }> {
  const rows: CatalogRows = { tokens: [], placements: [], lineItems: [], creatives: [] };
  const categoryOf = new Map<string, string>();
  specs.forEach((spec, i) => {
    const id = `li-${i}`;
    categoryOf.set(id, spec.category);
    rows.lineItems.push({
      id,
      campaign_id: `c-${i}`,
      brand_name: spec.category,
      bid_type: 'CPC',
      bid_value: '1',
      budget_daily: '100',
      budget_currency: 'USD', budget_lifetime: null, budget_pacing: 'asap', frequency_cap: null, starts_at: null, ends_at: null,
      targeting: { keywords: { include: spec.keywords }, ...(semantic ? { semantic } : {}) },
    });
    rows.creatives.push({ id: `cr-${i}`, line_item_id: id, title: spec.title, body: spec.body, cta: 'Go', destination_url: 'https://example.com', image_url: null });
  });
  const { index } = await buildAdIndex('eval', rows, {
    userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
    spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
    statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
    toUsd: convertToUsd,
    semanticModel: model,
    ...(guarded ? { brandSafety } : {}),
  });
  return { index, categoryOf };
}

type Predict = (c: Conversation) => string | undefined;

async function selectionPredictor(semantic: { enabled: boolean; min_similarity: number } | undefined, guarded = true): Promise<Predict> {
  const { index, categoryOf } = await indexFor(semantic, guarded);
  const placement = { publisherId: 'p', certified: true };
  return (c) => {
    const selection = selectAd(index, 'pl', placement, { ...ANY_TIME, query: c.query, response: c.answer });
    return selection ? categoryOf.get(selection.lineItem.id) : undefined;
  };
}

const itemVectors = specs.map((spec) => lineItemVector(model, spec.keywords, [spec])!);
/** Semantic only: the most similar line item, if similar enough (what selectAd does at equal bids without keywords). */
function semanticPredictor(minSimilarity: number): Predict {
  return (c) => {
    const vector = model.embedText(`${c.query} ${c.answer}`);
    if (!vector || vetoed(c)) return undefined;
    let best = -1;
    let bestScore = -Infinity;
    itemVectors.forEach((item, i) => {
      const score = similarity(vector, item);
      if (score > bestScore) [best, bestScore] = [i, score];
    });
    return bestScore >= minSimilarity ? specs[best]!.category : undefined;
  };
}

interface Scores {
  served: number;
  correct: number;
  fitting: number;
  fittingServed: number;
  total: number;
}
function score(predict: Predict, set: Conversation[]): Scores {
  const scores: Scores = { served: 0, correct: 0, fitting: 0, fittingServed: 0, total: set.length };
  for (const c of set) {
    const predicted = predict(c);
    if (fits(c)) scores.fitting += 1;
    if (predicted === undefined) continue;
    scores.served += 1;
    if (predicted === c.label) scores.correct += 1;
    if (fits(c)) scores.fittingServed += 1;
  }
  return scores;
}

/** 95 % Wilson score interval of a proportion. */
function wilson(successes: number, trials: number): [number, number] {
  if (trials === 0) return [0, 1];
  const z = 1.96;
  const p = successes / trials;
  const centre = p + (z * z) / (2 * trials);
  const spread = z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  const denominator = 1 + (z * z) / trials;
  return [(centre - spread) / denominator, (centre + spread) / denominator];
}
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
function proportion(successes: number, trials: number): string {
  const [low, high] = wilson(successes, trials);
  return `${percent(successes / Math.max(trials, 1))} [${percent(low)}, ${percent(high)}] (${successes}/${trials})`;
}
function row(name: string, s: Scores): string {
  return `| ${name} | ${proportion(s.correct, s.served)} | ${proportion(s.correct, s.fitting)} | ${proportion(s.served, s.total)} |`;
}

const thresholds = Array.from({ length: 51 }, (_, i) => 0.3 + i * 0.01).map((t) => Math.round(t * 100) / 100);
/** Four ads in five in the right category: the default min_similarity is the lowest that reaches it on the tuning rows. */
const TARGET_PRECISION = 0.8;
const precision = (s: Scores) => (s.served === 0 ? 0 : s.correct / s.served);
const fill = (s: Scores) => s.served / s.total;

const keyword = await selectionPredictor(undefined);
const hybridAt = new Map<number, Predict>();
for (const t of thresholds) hybridAt.set(t, await selectionPredictor({ enabled: true, min_similarity: t }));

// Tuning rows: the lowest threshold at which hybrid reaches TARGET_PRECISION, and the
// semantic-only threshold whose fill comes closest to keyword-only's fill.
const keywordTuning = score(keyword, tuning);
const hybridThreshold = thresholds.find((t) => precision(score(hybridAt.get(t)!, tuning)) >= TARGET_PRECISION) ?? thresholds.at(-1)!;
const semanticThreshold = thresholds.reduce((bestT, t) =>
  Math.abs(fill(score(semanticPredictor(t), tuning)) - fill(keywordTuning)) < Math.abs(fill(score(semanticPredictor(bestT), tuning)) - fill(keywordTuning)) ? t : bestT,
);
const semanticAtHybrid = semanticPredictor(hybridThreshold);

const lines: string[] = [];
lines.push(`${conversations.length} conversations (${conversations.filter(fits).length} fit a category, ${conversations.filter((c) => c.label === 'none').length} none, ${conversations.filter((c) => c.label === 'sensitive').length} sensitive), ${specs.length} line items.`);
const tuningHybrid = score(hybridAt.get(hybridThreshold)!, tuning);
lines.push(`Tuning rows: keyword only ${percent(precision(keywordTuning))} precise at ${percent(fill(keywordTuning))} fill; hybrid at ${hybridThreshold}: ${percent(precision(tuningHybrid))} at ${percent(fill(tuningHybrid))}.`);
lines.push(`Thresholds chosen on the ${tuning.length} even rows: hybrid min_similarity ${hybridThreshold} (lowest reaching ${percent(TARGET_PRECISION)} precision), semantic-only at equal fill ${semanticThreshold}.`);
lines.push(`Held-out: the ${heldOut.length} odd rows. 95 % Wilson intervals. Precision@1 = right category / ads served; recall = right category / conversations that fit one; fill = ads served / all conversations (an ad on a "none" or sensitive conversation counts as served and wrong). Brand safety on in every mode.`);
lines.push('');
lines.push('| mode | precision@1 | recall | fill |');
lines.push('|---|---|---|---|');
lines.push(row('keyword only', score(keyword, heldOut)));
lines.push(row(`semantic only, min_similarity ${semanticThreshold} (equal fill)`, score(semanticPredictor(semanticThreshold), heldOut)));
lines.push(row(`semantic only, min_similarity ${hybridThreshold}`, score(semanticAtHybrid, heldOut)));
lines.push(row(`hybrid, min_similarity ${hybridThreshold}`, score(hybridAt.get(hybridThreshold)!, heldOut)));
lines.push('');
lines.push('Hybrid by min_similarity (precision@1 / fill), tuning rows:');
lines.push(
  [0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]
    .map((t) => {
      const s = score(hybridAt.get(t)!, tuning);
      return `${t}: ${percent(precision(s))} / ${percent(fill(s))}`;
    })
    .join('; '),
);
lines.push('Held-out rows:');
lines.push(
  [0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]
    .map((t) => {
      const s = score(hybridAt.get(t)!, heldOut);
      return `${t}: ${percent(precision(s))} / ${percent(fill(s))}`;
    })
    .join('; '),
);

const sensitive = conversations.filter((c) => c.label === 'sensitive');
const others = conversations.filter((c) => c.label !== 'sensitive');
function vetoed(c: Conversation): boolean {
  const scans = [c.query, c.answer].map((text) => {
    const scan = new WordScan();
    scan.scan(text);
    return scan;
  });
  return brandSafety.veto(scans, model.embedText(`${c.query} ${c.answer}`)) !== undefined;
}
lines.push('');
const keywordUnguarded = await selectionPredictor(undefined, false);
lines.push(`Brand safety (all rows, min similarity ${brandSafety.minSimilarity}): sensitive conversations served an ad by keyword-only matching without it: ${sensitive.filter((c) => keywordUnguarded(c) !== undefined).length} of ${sensitive.length}; vetoed with it: ${proportion(sensitive.filter(vetoed).length, sensitive.length)}; other conversations vetoed by mistake: ${proportion(others.filter(vetoed).length, others.length)}.`);
// Brand safety alone on single questions (bench/semantic/brandSafetyCases.txt), by where they come from.
const caseTally = new Map<string, { right: number; all: number }>();
for (const line of readFileSync(path.join(folder, 'brandSafetyCases.txt'), 'utf8').split('\n')) {
  if (line.trim() === '' || line.startsWith('#')) continue;
  const [expected, source, query] = line.split(' | ');
  const [q, r] = [new WordScan(), new WordScan()];
  q.scan(query!);
  r.scan('Here is some information.');
  const right = (brandSafety.veto([q, r], model.embedConversation(q, r)) !== undefined) === (expected === 'veto');
  const key = `${source} ${expected === 'veto' ? 'vetoed' : 'served'}`;
  const tally = caseTally.get(key) ?? { right: 0, all: 0 };
  caseTally.set(key, { right: tally.right + (right ? 1 : 0), all: tally.all + 1 });
}
lines.push(`Brand safety cases (brandSafetyCases.txt, right / all): ${[...caseTally].map(([key, { right, all }]) => `${key} ${right}/${all}`).join(', ')}.`);
// Whole chat turns written for brand safety alone (bench/semantic/brandSafetyHeldOut*.txt), judged as a serve would: query and answer.
for (const file of ['brandSafetyHeldOut.txt', 'brandSafetyHeldOut2.txt', 'brandSafetyHeldOut3.txt', 'brandSafetyHeldOut4.txt', 'brandSafetyHeldOut5.txt', 'brandSafetyHeldOut6.txt', 'brandSafetyHeldOut7.txt', 'brandSafetyHeldOut8.txt', 'brandSafetyHeldOut9.txt', 'brandSafetyHeldOut10.txt', 'brandSafetyHeldOut11.txt', 'brandSafetyHeldOut12.txt', 'brandSafetyHeldOut13.txt']) {
  const tally = { veto: { right: 0, all: 0 }, serve: { right: 0, all: 0 } };
  for (const line of readFileSync(path.join(folder, file), 'utf8').split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const [expected, , query, answer] = line.split(' | ');
    const kind = tally[expected === 'veto' ? 'veto' : 'serve'];
    kind.all += 1;
    if (vetoed({ label: '', query: query!, answer: answer! }) === (expected === 'veto')) kind.right += 1;
  }
  lines.push(`Brand safety, ${file}: sensitive vetoed ${proportion(tally.veto.right, tally.veto.all)}; ordinary vetoed by mistake ${proportion(tally.serve.all - tally.serve.right, tally.serve.all)}.`);
}
console.log(lines.join('\n'));
