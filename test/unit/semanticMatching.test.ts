import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAdIndex } from '../../src/serving/adIndex.js';
import { rerank } from '../../src/serving/rerankInSteps.js';
import type { CatalogRows, CreativeRow, LineItemRow } from '../../src/serving/catalogQueries.js';
import { relevance, selectAd } from '../../src/serving/selectAd.js';
import { packageRoot } from '../../src/packageRoot.js';
import { CLUSTERED_FROM_ROWS, SemanticMatrix, TOP_RANKS } from '../../src/semantic/semanticMatrix.js';
import { seededRandom } from '../../bench/seededRandom.js';
import { searchAgreement } from '../../bench/semanticAgreement.js';
import { clustersInWorker } from '../../src/semantic/clustersInWorker.js';
import { convertToUsd } from '../../src/money/usdRates.js';
import { BrandSafety, type BrandSafetyVeto } from '../../src/semantic/brandSafety.js';
import { SemanticModel, checkHash, lineItemVector, similarity } from '../../src/semantic/semanticModel.js';
import { WordScan, wordHash, wordsOf } from '../../src/serving/contextWords.js';
import { convertWinkEmbeddings } from '../../src/semantic/buildWordVectors.js';
import { DEFAULT_WORD_VECTORS_PATH, decodeWordVectors, encodeWordVectors, readWordVectors, recordWordVectorsFingerprint } from '../../src/semantic/wordVectorsFile.js';
import { stampedAfter } from '../../src/fileStamp.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { realSemanticModel } from '../helpers/wordVectors.js';
import { DEFAULT_MIN_SIMILARITY } from '../../src/semantic/semanticDefaults.js';
import { CONFIRMED_WITH, SENSITIVE_TOPICS } from '../../src/semantic/sensitiveTopics.js';

/** No flight, pacing share or daypart in play: these line items only test matching. */
const ANY_TIME = { nowMs: Date.now(), evenShare: 1 };

const PLACEMENT = { publisherId: 'pub', certified: true };

interface Spec {
  title: string;
  body: string;
  targeting: object;
  bid?: string;
}

let model: SemanticModel;
beforeAll(() => {
  model = realSemanticModel();
}, 120_000);

async function indexOf(specs: Spec[], options: { model?: SemanticModel | null; brandSafety?: boolean; clusteredFrom?: number } = {}) {
  const lineItems: LineItemRow[] = [];
  const creatives: CreativeRow[] = [];
  for (const spec of specs) {
    const id = randomUUID();
    lineItems.push({ id, campaign_id: randomUUID(), brand_name: 'Brand', bid_type: 'CPC', bid_value: spec.bid ?? '1', budget_daily: '100', budget_currency: 'USD', budget_lifetime: null, budget_pacing: 'asap', frequency_cap: null, starts_at: null, ends_at: null, targeting: spec.targeting });
    creatives.push({ id: randomUUID(), line_item_id: id, title: spec.title, body: spec.body, cta: 'Shop', destination_url: 'https://example.com', image_url: null });
  }
  const rows: CatalogRows = { tokens: [], placements: [], lineItems, creatives };
  const semanticModel = options.model === null ? undefined : (options.model ?? model);
  const { index } = await buildAdIndex('v1', rows, {
    userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
    spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
    statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
    toUsd: convertToUsd,
    ...(semanticModel ? { semanticModel } : {}),
    ...(options.brandSafety ? { brandSafety: new BrandSafety(semanticModel) } : {}),
    ...(options.clusteredFrom !== undefined ? { semanticClusteredFrom: options.clusteredFrom } : {}),
  });
  return { index, ids: lineItems.map((row) => row.id) };
}

interface EvaluationCategory {
  keywords: string[];
  title: string;
  body: string;
}

/** The semantic evaluation set (bench/semantic/README.md): its line items' categories, and its conversations as [query, response]. */
function evaluationSet(): { categories: EvaluationCategory[]; conversations: [string, string][] } {
  const folder = path.join(packageRoot, 'bench', 'semantic');
  const categories = JSON.parse(readFileSync(path.join(folder, 'lineItems.json'), 'utf8')) as EvaluationCategory[];
  const conversations = readFileSync(path.join(folder, 'conversations.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(' | ') && !line.startsWith('#'))
    .map((line) => line.split(' | ').slice(1) as [string, string]);
  return { categories, conversations };
}

/**
 * Ten line items of each category, as `spec` makes them, with bids all different (7919 is prime to
 * their count), in no order of copy or category: two equal ones (Math.random's, once) tie on score,
 * and a tie is broken by the index's seed, not by this loop.
 */
function tenOfEach(categories: EvaluationCategory[], spec: (category: EvaluationCategory, copy: number) => Omit<Spec, 'bid'>): Spec[] {
  const specs: Spec[] = [];
  for (let copy = 0; copy < 10; copy++) {
    for (const category of categories) specs.push({ ...spec(category, copy), bid: (0.5 + ((specs.length * 7919) % 1000) / 1000).toFixed(4) });
  }
  return specs;
}

const RUNNING_SHOES: Spec = {
  title: 'Run lighter',
  body: 'Cushioned running shoes for every distance.',
  targeting: { keywords: { include: ['running shoes', 'trail runners'] }, semantic: { enabled: true, min_similarity: 0.45 } },
};
const DOG_FOOD: Spec = {
  title: 'Food dogs love',
  body: 'Grain-free dog food, delivered.',
  targeting: { keywords: { include: ['dog food', 'puppy food'] }, semantic: { enabled: true, min_similarity: 0.45 } },
};

describe('semantic matching', () => {
  it('serves an opted-in line item where the conversation means what its keywords say, without any keyword in it', async () => {
    const { index, ids } = await indexOf([RUNNING_SHOES]);
    const selection = selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: 'Start with comfortable clothes that breathe.' });
    expect(selection?.lineItem.id).toBe(ids[0]);
    expect(selection?.match?.by).toBe('similarity');
    expect(selection?.match?.similarity).toBeGreaterThanOrEqual(selection!.match!.min_similarity!);
  });

  it('does not serve it next to an unrelated conversation', async () => {
    const { index } = await indexOf([RUNNING_SHOES]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'How do I bake sourdough bread?', response: 'Feed your starter the night before.' })).toBeUndefined();
  });

  it('leaves a line item that did not opt in to its keywords', async () => {
    const { index } = await indexOf([{ ...RUNNING_SHOES, targeting: { keywords: { include: ['running shoes'] } } }]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })).toBeUndefined();
  });

  it('still matches include keywords as before, and says which', async () => {
    const { index, ids } = await indexOf([RUNNING_SHOES]);
    const selection = selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'Are trail runners worth it?', response: 'For muddy paths, yes.' });
    expect(selection?.lineItem.id).toBe(ids[0]);
    expect(selection?.match).toEqual({ by: 'keywords', keywords: ['trail runners'] });
  });

  it('lets a keyword exclude veto a similarity match', async () => {
    const targeting = { keywords: { include: ['running shoes'], exclude: ['marathon'] }, semantic: { enabled: true } };
    const { index } = await indexOf([{ ...RUNNING_SHOES, targeting }]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })).toBeUndefined();
  });

  it('honours a line item\u2019s own min_similarity', async () => {
    const { index } = await indexOf([{ ...RUNNING_SHOES, targeting: { keywords: { include: ['running shoes'] }, semantic: { enabled: true, min_similarity: 0.95 } } }]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })).toBeUndefined();
  });

  it('serves an opted-in line item without keywords only where the conversation is similar, not everywhere', async () => {
    const { index, ids } = await indexOf([{ ...RUNNING_SHOES, targeting: { semantic: { enabled: true } } }]);
    expect(index.lineItems[0]!.semantic!.minSimilarity).toBe(DEFAULT_MIN_SIMILARITY);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'Which trainers are best for long distance running?', response: '' })?.lineItem.id).toBe(ids[0]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'How do I bake sourdough bread?', response: '' })).toBeUndefined();
  });

  it('ranks a similarity match as at most one matched keyword, weighted by its similarity', async () => {
    // The keyword line item bids less than the similar one but matches two keywords (x2 against at most x1.5).
    const keywordItem: Spec = { title: 'Race kit', body: 'Gear for racing.', bid: '1', targeting: { keywords: { include: ['marathon', 'first'] } } };
    const similarItem: Spec = { ...RUNNING_SHOES, bid: '1.2' };
    const { index, ids } = await indexOf([keywordItem, similarItem]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })?.lineItem.id).toBe(ids[0]);
    const { index: richer, ids: richerIds } = await indexOf([keywordItem, { ...similarItem, bid: '1.8' }]);
    expect(selectAd(richer, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })?.lineItem.id).toBe(richerIds[1]);
  });

  it('without word vectors, an opted-in line item matches by its keywords only', async () => {
    const { index, ids } = await indexOf([RUNNING_SHOES], { model: null });
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })).toBeUndefined();
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'Best running shoes?', response: '' })?.lineItem.id).toBe(ids[0]);
  });

  it('prefers the closer of two similar line items at equal bids', async () => {
    const { index, ids } = await indexOf([DOG_FOOD, RUNNING_SHOES].map((spec) => ({ ...spec, targeting: { semantic: { enabled: true, min_similarity: 0.1 } } })));
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I feed my new puppy?', response: '' })?.lineItem.id).toBe(ids[0]);
    expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query: 'What should I wear for my first marathon?', response: '' })?.lineItem.id).toBe(ids[1]);
  });
});

describe('brand safety', () => {
  const vetoOf = async (query: string, response: string) => {
    const { index } = await indexOf([DOG_FOOD], { brandSafety: true });
    let veto: BrandSafetyVeto | undefined;
    const selection = selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query, response }, (found) => (veto = found));
    return { selection, veto };
  };

  it("vetoes by every topic's phrases, in the query or the response, and not by their words out of order", () => {
    const safety = new BrandSafety(undefined);
    const scan = (text: string) => {
      const words = new WordScan();
      words.scan(text);
      return words;
    };
    const quiet = scan('What a lovely day for a walk in the park.');
    // Each slot filled with one of its words ("{someone} died": "friend died"; not a named relative,
    // whose "lost dad" would be another phrase in "fight his lost dad"), guards dropped.
    const filled = (phrase: string) =>
      phrase
        .replace('{named relative}', 'mum').replace('{relative}', 'dad').replace('{someone}', 'friend').replace('{anyone}', 'he').replace('{anybody}', 'she')
        .replace('{pet animal}', 'dog').replace('{pet}', 'our dog').replace('{place}', 'town').replace('{having}', 'has').replace('{starting}', 'start').replace('{taking}', 'using').replace('{first}', 'first').replace('{nearly}', 'nearly').replace('{calling}', 'is').replace('{habit}', 'keep').replace('{structure}', 'building').replace('{letter t}', 't').replace('{span}', 'years')
        .replace(/^\{not with [a-z ]+\} /, '').replace(/^\{not near [a-z ]+\} /, '').replace(/^\{not just after [a-z ]+\} /, '').replace(/^\{not after [a-z]+\} /, '').replace(/ \{if ([a-z]+)\}$/, (_, name: string) => ` ${CONFIRMED_WITH[name]![0]}`).replace(/ \{unless [a-z ]+\}$/, '');
    for (const topic of SENSITIVE_TOPICS) {
      const english = topic.phrases.map(filled);
      // Filled with their `{if NAME}` word, which reversed still confirms them ("war frontline").
      const conditional = new Set(topic.phrases.filter((phrase) => / \{if [a-z]+\}$/.test(phrase)).map(filled));
      // An ambiguous phrase vetoes only with a confirming word (tested below).
      const confirmed = topic.ambiguous.map((phrase) => `${filled(phrase)} ${topic.confirmedBy[0]}`);
      for (const phrase of [...english, ...confirmed, ...Object.values(topic.otherLanguages).flat().map(filled)]) {
        const inText = scan(`Well, about ${phrase.toUpperCase()}, what now?`);
        expect(safety.phraseVeto([inText, quiet])?.by, phrase).toBe('phrase');
        expect(safety.phraseVeto([quiet, inText])?.by, phrase).toBe('phrase');
        const words = wordsOf(phrase);
        // English only: another language's list may hold a phrase's last word on its own ("atentado").
        // ...unless an ambiguous phrase and its confirming word are among them ("illness terminal").
        const confirms = topic.ambiguous.some((ambiguous) => words.includes(filled(ambiguous))) && topic.confirmedBy.some((word) => words.includes(word));
        if (words.length > 1 && english.includes(phrase) && !confirms && !conditional.has(phrase)) expect(safety.phraseVeto([scan(words.reverse().join(' ')), quiet]), phrase).toBeUndefined();
      }
      for (const phrase of topic.ambiguous) expect(safety.phraseVeto([scan(`Well, about ${filled(phrase)}, what now?`), quiet]), phrase).toBeUndefined();
      // A phrase with `{if NAME}` vetoes only with one of its own confirming words.
      for (const phrase of topic.phrases.filter((text) => text.endsWith('}') && text.includes(' {if '))) {
        expect(safety.phraseVeto([scan(`Well, about ${filled(phrase.replace(/ \{if [a-z]+\}$/, ''))}, what now?`), quiet]), phrase).toBeUndefined();
      }
    }
    expect(safety.phraseVeto([quiet, quiet])).toBeUndefined();
  });

  it('vetoes a keyword match next to a sensitive phrase ("dog food" when the dog passed away)', async () => {
    const { selection, veto } = await vetoOf('Our dog passed away yesterday. What do we do with the dog food we have left?', 'I am so sorry.');
    expect(selection).toBeUndefined();
    expect(veto).toEqual({ topic: 'bereavement', by: 'phrase' });
  });

  it('vetoes a keyword match when only the meaning is sensitive (no listed phrase)', async () => {
    const { selection, veto } = await vetoOf('My dog is gone and I cannot stop crying. What should I do with his dog food and toys?', 'I am so sorry.');
    expect(selection).toBeUndefined();
    expect(veto).toMatchObject({ topic: 'bereavement', by: 'similarity' });
  });

  it('vetoes a keyword match next to a death no listed word names, by a person or pet and what happened to them', async () => {
    // Served on main before session 33: no phrase, and a similarity under the veto's 0.4.
    for (const query of ['We had to say goodbye to our dog this morning, what do we do with the dog food we have left?', 'My uncle passed on tuesday, can I donate his dog food?']) {
      const { selection, veto } = await vetoOf(query, 'Here is some information.');
      expect(selection, query).toBeUndefined();
      expect(veto, query).toEqual({ topic: 'bereavement', by: 'phrase' });
    }
  });

  it('serves a keyword match where the sensitive words have their everyday sense (an in-law\'s possessive, a season sale)', async () => {
    // Vetoed on main before session 33 ("lost my father", "hurricane").
    for (const query of ["I lost my father-in-law's dog food scoop, which dog food brand sells one?", 'Is the hurricane season sale on dog food worth it?']) {
      const { selection, veto } = await vetoOf(query, 'Here is some information.');
      expect(veto, query).toBeUndefined();
      expect(selection?.match, query).toEqual({ by: 'keywords', keywords: ['dog food'] });
    }
  });

  it('vetoes a similarity match next to a death no listed word names, and serves one where the words are everyday', async () => {
    const { index, ids } = await indexOf([{ ...DOG_FOOD, targeting: { semantic: { enabled: true, min_similarity: 0.45 } } }], { brandSafety: true });
    const { index: unguarded, ids: unguardedIds } = await indexOf([{ ...DOG_FOOD, targeting: { semantic: { enabled: true, min_similarity: 0.45 } } }]);
    const serve = (target: typeof index, query: string) => selectAd(target, 'pl', PLACEMENT, { ...ANY_TIME, query, response: '', explain: true });
    // Served on main before session 33.
    const death = 'We had our old dog put down yesterday, what should we do with the food he left?';
    expect(serve(unguarded, death)?.lineItem.id).toBe(unguardedIds[0]);
    expect(serve(index, death)).toBeUndefined();
    // Vetoed on main before session 33 ("hurricane").
    const sale = 'Is the hurricane season sale on dog food worth it?';
    expect(serve(index, sale)).toMatchObject({ lineItem: { id: ids[0] }, match: { by: 'similarity' } });
  });

  it('vetoes a similarity match too', async () => {
    const { index } = await indexOf([{ ...DOG_FOOD, targeting: { semantic: { enabled: true, min_similarity: 0.45 } } }], { brandSafety: true });
    const context = { ...ANY_TIME, query: 'Our puppy was hit by a car and is badly hurt, what should we feed her?', response: '' };
    const { index: unguarded, ids } = await indexOf([{ ...DOG_FOOD, targeting: { semantic: { enabled: true, min_similarity: 0.45 } } }]);
    expect(selectAd(unguarded, 'pl', PLACEMENT, context)?.lineItem.id).toBe(ids[0]);
    expect(selectAd(index, 'pl', PLACEMENT, context)).toBeUndefined();
  });

  it('clears without the vector only conversations the vector would not veto: the evaluation set and 20,000 generated ones', () => {
    const brandSafety = new BrandSafety(model);
    const { words: vocabulary } = readWordVectors(DEFAULT_WORD_VECTORS_PATH)!;
    const evaluation = evaluationSet().conversations;
    // Mixes of the evaluation set's words, the topics' own and the vocabulary's (rare words too),
    // 1 to 120 words long: many near the veto's threshold.
    const evaluationWords = evaluation.flatMap(([query, response]) => wordsOf(`${query} ${response}`));
    const topicWords = wordsOf('died funeral grief crash injured killed ambulance flood wildfire evacuation cancer tumor chemotherapy suicide overdose abuse assault victim hospital loss');
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x85ebca6b) + 0x9e3779b9) | 0) >>> 0) / 2 ** 32;
    const pick = () => {
      const kind = random();
      if (kind < 0.6) return evaluationWords[Math.floor(random() * evaluationWords.length)]!;
      if (kind < 0.75) return topicWords[Math.floor(random() * topicWords.length)]!;
      return vocabulary[Math.floor(random() ** 3 * vocabulary.length)]!;
    };
    const generated = Array.from({ length: 20_000 }, () => {
      const words = Array.from({ length: 1 + Math.floor(random() ** 2 * 120) }, pick);
      const cut = Math.floor(random() * words.length);
      return [words.slice(0, cut).join(' '), words.slice(cut).join(' ')] as [string, string];
    });
    const [query, response] = [new WordScan(), new WordScan()];
    const tally = { cleared: 0, vetoed: 0, clearedButVetoed: 0, evaluationCleared: 0 };
    for (const [at, [queryText, responseText]] of [...evaluation, ...generated].entries()) {
      query.scan(queryText);
      response.scan(responseText);
      const cleared = brandSafety.clearsBySimilarity(query, response);
      const veto = brandSafety.similarityVeto(model.embedConversation(query, response), [query, response]);
      if (veto !== undefined) tally.vetoed += 1;
      if (cleared) tally.cleared += 1;
      if (cleared && at < evaluation.length) tally.evaluationCleared += 1;
      if (cleared && veto !== undefined) tally.clearedButVetoed += 1;
    }
    expect(tally.clearedButVetoed).toBe(0);
    expect(tally.vetoed).toBeGreaterThan(5_000);
    expect(tally.cleared).toBeGreaterThan(2_000);
    // It does its job: most everyday conversations are cleared without their vector.
    expect(tally.evaluationCleared).toBeGreaterThan(evaluation.length * 0.7);
  });

  it('leaves everyday senses of sensitive words alone', async () => {
    const { selection, veto } = await vetoOf('What dog food is best for a puppy? My phone battery died while I was reading reviews.', '');
    expect(veto).toBeUndefined();
    expect(selection?.match).toEqual({ by: 'keywords', keywords: ['dog food'] });
  });
});

describe('word vectors file', () => {
  it('keeps the most frequent scannable words, int8 within 1/254 of each component, and reads back what it wrote', () => {
    const raw = {
      dimensions: 3,
      words: ['the', ',', 'Paris', 'dog', 'cat'],
      vectors: { the: [0.5, -1, 0.25], ',': [1, 1, 1], Paris: [1, 0, 0], dog: [0.1, 0.2, -0.3], cat: [0.2, 0.1, 0] },
    };
    const converted = convertWinkEmbeddings(raw, 2);
    expect(converted.words).toEqual(['the', 'dog']);
    const decoded = decodeWordVectors(encodeWordVectors(converted));
    expect(decoded.words).toEqual(['the', 'dog']);
    const component = (rank: number, d: number) => decoded.components[rank * 3 + d]! * decoded.scales[rank]!;
    raw.vectors.dog.forEach((value, d) => expect(Math.abs(component(1, d) - value)).toBeLessThanOrEqual(0.3 / 254 + 1e-7));
    expect(Math.hypot(...decoded.commonDirection)).toBeCloseTo(1, 5);
  });

  it('identifies each word by its two hashes: no two words of the shipped vocabulary share both', () => {
    const { words } = readWordVectors(DEFAULT_WORD_VECTORS_PATH)!;
    const pairs = new Set(words.map((word) => `${wordHash(word)}:${checkHash(word, 0, word.length)}`));
    expect(words.length).toBeGreaterThan(50_000);
    expect(pairs.size).toBe(words.length);
  });

  it('finds every word of the vocabulary with its own rank, weight and row', () => {
    const vectors = readWordVectors(DEFAULT_WORD_VECTORS_PATH)!;
    const wrong: string[] = [];
    vectors.words.forEach((word, rank) => {
      const slot = model.wordSlot(wordHash(word), word, 0, word.length);
      const row = slot < 0 ? undefined : model.wordRow(model.slotRank(slot));
      const expected = vectors.components.subarray(rank * vectors.dimensions, (rank + 1) * vectors.dimensions);
      if (slot < 0 || model.slotRank(slot) !== rank || !(model.slotWeight(slot) > 0) || row!.some((component, d) => component !== expected[d])) wrong.push(word);
    });
    expect(wrong).toEqual([]);
    expect(model.wordSlot(wordHash('zxqvqqzx'), 'zxqvqqzx', 0, 8)).toBe(-1);
  });

  it('embeds a conversation as its query and response together, up to 400 words', () => {
    const scanOf = (text: string) => {
      const scan = new WordScan();
      scan.scan(text);
      return scan;
    };
    const query = 'what should I wear for my first marathon';
    const response = 'Pick light shoes with good cushioning and socks that do not rub.';
    expect([...model.embedConversation(scanOf(query), scanOf(response))!]).toEqual([...model.embedText(`${query} ${response}`)!]);
    const long = Array.from({ length: 60 }, () => response).join(' ');
    const kept = wordsOf(long).slice(0, 400 - wordsOf(query).length).join(' ');
    expect([...model.embedConversation(scanOf(query), scanOf(long))!]).toEqual([...model.embedText(`${query} ${kept}`)!]);
    expect(model.embedConversation(scanOf('zxqv'), scanOf('qqzx'))).toBeUndefined();
  });

  it("makes a line item's vector of its keywords' and its creatives' unit vectors, weighted equally, whatever was embedded before", () => {
    // What lineItemVector is defined as, step for step: a faster way of making it must give these bytes.
    const defined = (keywords: string[], creatives: Array<{ title: string; body: string }>) => {
      const parts = [model.embedText(keywords.join(', ')), model.embedText(creatives.map((creative) => `${creative.title} ${creative.body}`).join('. '))];
      const sum = new Float32Array(model.dimensions);
      for (const part of parts) if (part) for (let d = 0; d < sum.length; d++) sum[d]! += part[d]!;
      let norm = 0;
      for (let d = 0; d < sum.length; d++) norm += sum[d]! * sum[d]!;
      if (!(norm > 0)) return undefined;
      for (let d = 0; d < sum.length; d++) sum[d]! *= 1 / Math.sqrt(norm);
      return [...sum];
    };
    const cases: Array<[string[], Array<{ title: string; body: string }>]> = [
      [['running shoes', 'marathon'], [{ title: 'Light trainers', body: 'Cushioned for long runs.' }, { title: 'Race socks', body: 'No blisters at mile 20.' }]],
      [['running shoes'], [{ title: 'zxqv', body: 'qqzx' }]],
      [['zxqv'], [{ title: 'Hiking boots', body: 'Waterproof leather for the hills.' }]],
      [[], [{ title: 'Hiking boots', body: 'Waterproof leather for the hills.' }]],
      [['zxqv'], [{ title: 'qqzx', body: '' }]],
    ];
    for (const [keywords, creatives] of cases) {
      const vector = lineItemVector(model, keywords, creatives);
      expect(vector === undefined ? undefined : [...vector]).toEqual(defined(keywords, creatives));
    }
    expect(lineItemVector(model, ['zxqv'], [{ title: 'qqzx', body: '' }])).toBeUndefined();
  });

  it('refuses a file that is not one', () => {
    expect(() => decodeWordVectors(Buffer.from('not vectors at all'))).toThrow(/not a word vectors file/);
  });

  it('takes the fingerprint the build recorded while the file keeps its stamp, and hashes a file written since', async () => {
    const file = path.join(tempDirectory('word-vectors-'), 'word-vectors.bin');
    const bytes = encodeWordVectors(convertWinkEmbeddings({ dimensions: 2, words: ['the', 'dog'], vectors: { the: [1, 0], dog: [0, 1] } }));
    writeFileSync(file, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    // Written just now, as by a fresh clone's first build: it waits until the file can be stamped, then records.
    stampedAfter.ms = 300;
    const started = Date.now();
    try {
      await recordWordVectorsFingerprint(file);
    } finally {
      stampedAfter.ms = 2_000;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(existsSync(`${file}.sha256`)).toBe(true);
    expect(readWordVectors(file)!.fingerprint).toBe(sha256);
    // What the start took is the recorded value, not a hash of the file: a recorded value of our own shows it.
    const recorded = readFileSync(`${file}.sha256`);
    recorded.fill(7, 32);
    writeFileSync(`${file}.sha256`, recorded);
    expect(readWordVectors(file)!.fingerprint).toBe('07'.repeat(32));
    // The same bytes written again: another stamp, so the file is hashed.
    writeFileSync(file, bytes);
    expect(readWordVectors(file)!.fingerprint).toBe(sha256);
  });
});

describe('semantic scan', () => {
  it('follows a re-ranking: the walk judges by the expected values the matrix was last filled with', async () => {
    const lenient = (spec: Spec, bid: string): Spec => ({ ...spec, bid, targeting: { semantic: { enabled: true, min_similarity: 0.3 } } });
    const trainers: Spec = { title: 'Marathon ready', body: 'Racing flats and trainers for runners.', targeting: {} };
    // Ranked dog food (not similar), running shoes, trainers; the conversation is about running.
    const { index, ids } = await indexOf([lenient(DOG_FOOD, '3'), lenient(RUNNING_SHOES, '2'), lenient(trainers, '1')]);
    const context = { ...ANY_TIME, query: 'which sneakers are best for a marathon?', response: 'Cushioned running shoes for long distances.' };
    expect(selectAd(index, 'pl', PLACEMENT, context)?.lineItem.id).toBe(ids[1]);
    // The trainers' clicks raise their expected value past the others'; a learning refresh re-ranks.
    const trainersEntry = index.lineItems.find((entry) => entry.id === ids[2])!;
    trainersEntry.stats = { impressions: 10_000, clicks: 5_000, conversions: 0 };
    rerank(index);
    expect(index.semantic.certified.map((entry) => entry.id)).toEqual([ids[2], ids[0], ids[1]]);
    expect(selectAd(index, 'pl', PLACEMENT, context)?.lineItem.id).toBe(ids[2]);
  });

  it('judges every line item of a shared vector (one row of a clustered list), each by its own threshold and eligibility', async () => {
    const running = (bid: string, minSimilarity: number, targeting: object = {}): Spec => ({ ...RUNNING_SHOES, bid, targeting: { ...targeting, semantic: { enabled: true, min_similarity: minSimilarity } } });
    const others: Spec[] = ['Garden tools', 'Tax software', 'Coffee beans', 'Guitar lessons', 'Ski holidays'].map((title) => ({ title, body: `${title} for everyone.`, targeting: { semantic: { enabled: true, min_similarity: 0.3 } } }));
    // The same text, so the same vector: the first ranked asks for more similarity than there is, the second is not on this placement.
    const { index, ids } = await indexOf([running('3', 0.99), running('2', 0.3, { placements: { exclude: ['pl'] } }), running('1', 0.3), ...others], { clusteredFrom: 4 });
    const matrix = index.semanticMatrices!.certified;
    expect(matrix.clustered).toBe(true);
    const ranks = [0, 1, 2].map((i) => matrix.entries.findIndex((entry) => entry.id === ids[i]));
    expect([matrix.sameVector[ranks[0]!], matrix.sameVector[ranks[1]!]]).toEqual([ranks[1], ranks[2]]);
    const context = { ...ANY_TIME, query: 'which sneakers are best for a marathon?', response: 'Light cushioned trainers for long distances.' };
    const selection = selectAd(index, 'pl', PLACEMENT, context);
    expect(selection?.lineItem.id).toBe(ids[2]);
    expect(selection?.match?.by).toBe('similarity');
  });

  it('picks the same line item as comparing the conversation with every opted-in line item', async () => {
    const { categories, conversations } = evaluationSet();
    const specs = tenOfEach(categories, (category) => ({ title: category.title, body: `${category.body} ${category.keywords.join(', ')}`, targeting: { semantic: { enabled: true, min_similarity: 0.45 } } }));
    const { index } = await indexOf(specs);
    expect(index.semanticMatrices?.certified.entries).toHaveLength(specs.length);
    let served = 0;
    for (const [query, response] of conversations.slice(0, 120)) {
      const conversation = model.embedText(`${query} ${response}`)!;
      let expected: string | undefined;
      let bestScore = -Infinity;
      for (const entry of index.lineItems) {
        const similar = similarity(conversation, entry.semantic!.vector);
        const score = entry.expectedValue * relevance(similar);
        if (similar >= 0.45 && score > bestScore) [expected, bestScore] = [entry.id, score];
      }
      if (expected) served += 1;
      expect(selectAd(index, 'pl', PLACEMENT, { ...ANY_TIME, query, response })?.lineItem.id, query).toBe(expected);
    }
    expect(served).toBeGreaterThan(30);
  });

  it('clustered, finds at least 95 % of the similarity matches comparing every opted-in line item finds (docs/semantic-matching.md), on a catalog of 10,000', async () => {
    // The serve-semantic bench's catalog with seed 8 and its 500 bodies: the default clustering found
    // 99 of 100 (bench/README.md, "Semantic: session 45", sem45b); sqrt(n) clusters found 91, 3 probed of them 89.
    const agreement = await searchAgreement(model, 8, 10_000);
    expect(agreement.lists.every((list) => list.endsWith('clusters'))).toBe(true);
    expect(agreement.exactBySimilarity).toBeGreaterThan(80);
    expect(agreement.found / agreement.exactBySimilarity, agreement.missed.join('; ')).toBeGreaterThanOrEqual(0.95);
    // And a fraction of the rows: about 86 of the 15,000 rows of both lists a serve.
    expect(agreement.rows / agreement.bodies).toBeLessThan(200);
  }, 120_000);

  it('skips the centres and scans only where the walk would take none of the ranks that could beat a keyword winner: the same ads with and without the skip, before and after a re-ranking', async () => {
    // The evaluation set's line items (bench/semantic), 10 copies, every one opted in, a third of
    // them on their category's keywords too, in a list clustered from 100 rows: 300 ranks, so past
    // the TOP_RANKS a keyword winner's bid can leave no chance to. Half the conversations name one of
    // a category's keywords (a keyword winner), half do not (the centres and probed scans).
    const { categories, conversations } = evaluationSet();
    const specs = tenOfEach(categories, (category, copy) => {
      const keywords = copy % 3 === 0 ? { keywords: { include: category.keywords } } : {};
      return { title: category.title, body: category.body, targeting: { ...keywords, semantic: { enabled: true, min_similarity: 0.45 } } };
    });
    const { index } = await indexOf(specs, { clusteredFrom: 100 });
    const bodies = conversations.map(([query, response], i) => {
      const category = categories[(i * 7) % categories.length]!;
      return {
        query: i % 2 === 0 ? query : `${query} Any good ${category.keywords[i % category.keywords.length]}?`,
        response,
        placement: i % 3 === 0 ? { ...PLACEMENT, certified: false } : PLACEMENT,
      };
    });
    const matrices = Object.values(index.semanticMatrices!);
    expect(matrices.every((matrix) => matrix.clustered && matrix.entries.length > TOP_RANKS)).toBe(true);
    // The skip taken or not as asked; `tested` set by a bound scan, cleared by the centres' comparison that follows one whose test failed.
    let skip = true;
    let tested = false;
    for (const matrix of matrices) {
      const scanTopRanks = matrix.scanTopRanks.bind(matrix);
      const prepare = matrix.prepare.bind(matrix);
      matrix.scanTopRanks = (conversation, ranks) => {
        if (!skip) return -1;
        const count = scanTopRanks(conversation, ranks);
        tested = count >= 0;
        return count;
      };
      matrix.prepare = (conversation) => {
        tested = false;
        return prepare(conversation);
      };
    }
    const winners = () => {
      let skipped = 0;
      const picked = bodies.map(({ query, response, placement }) => {
        tested = false;
        const selection = selectAd(index, 'pl', placement, { ...ANY_TIME, query, response });
        if (tested) skipped += 1;
        // The line item and why (a line item's creatives take turns from one serve to the next).
        return selection === undefined ? '-' : `${selection.lineItem.id} ${JSON.stringify(selection.match)}`;
      });
      return { picked, skipped };
    };
    const compare = () => {
      skip = true;
      const withSkip = winners();
      skip = false;
      const without = winners();
      expect(without.skipped).toBe(0);
      expect(withSkip.picked).toEqual(without.picked);
      // Both ways tried often enough to mean something (111 and 47 of the 300 skip, 120 and 209 are
      // similarity matches, before and after the re-ranking); a walk that scanned half the ranks it
      // should have picked other ads for some of them.
      expect(withSkip.skipped).toBeGreaterThan(bodies.length / 20);
      expect(withSkip.picked.filter((picked) => picked.includes('"similarity"')).length).toBeGreaterThan(bodies.length / 10);
    };
    compare();
    // A learning refresh re-ranks the line items (a reorder's commit writes the top ranks' rows again).
    const random = seededRandom(3);
    for (const entry of index.lineItems) if (random() < 0.3) entry.stats = { impressions: 1000, clicks: Math.floor(random() * 200), conversions: 0 };
    const before = index.semantic.certified.slice(0, TOP_RANKS).map((entry) => entry.id);
    rerank(index);
    expect(index.semantic.certified.slice(0, TOP_RANKS).map((entry) => entry.id)).not.toEqual(before);
    compare();
  });
});

/** A log for a trainer whose failures these tests do not look at. */
const silentLog = { warn: () => undefined } as never;

describe('SemanticMatrix (the int8 SIMD scan)', () => {
  const unitVector = (dimensions: number, random: () => number) => {
    const vector = Float32Array.from({ length: dimensions }, () => random() - 0.5);
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  };
  /** Seeded: `topics` random unit vectors, and `near(centre, noise)`, a unit vector that is `centre` plus noise of its own. */
  const seededTopics = (dimensions: number, seed: number, count: number) => {
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const topics = Array.from({ length: count }, () => unitVector(dimensions, random));
    const near = (centre: Float32Array, noise: number) => {
      const offset = unitVector(dimensions, random);
      const vector = centre.map((value, d) => value + noise * offset[d]!);
      const norm = Math.hypot(...vector);
      return vector.map((value) => value / norm);
    };
    return { random, topics, near };
  };

  it.each([100, 37])('keeps every row the exact similarity matches, at %i dimensions, and drops most of the others', (dimensions) => {
    let seed = dimensions;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const conversation = unitVector(dimensions, random);
    // Rows near the conversation (some exactly at their threshold), and unrelated ones.
    const entries = Array.from({ length: 2000 }, (_, row) => {
      const noise = unitVector(dimensions, random);
      const mix = row % 4 === 0 ? 0.6 : 0;
      const vector = conversation.map((value, d) => value * mix + noise[d]!);
      const norm = Math.hypot(...vector);
      const unit = vector.map((value) => value / norm);
      const exact = similarity(conversation, unit);
      return { id: row, expectedValue: 1, semantic: { vector: unit, minSimilarity: row % 8 === 0 ? exact : 0.3 }, exact };
    });
    const matrix = new SemanticMatrix<(typeof entries)[number]>(dimensions);
    matrix.fill(entries);
    expect(matrix.prepare(conversation)).toBe(true);
    // Whole, a prefix, and a range in the middle (row numbers stay those of the whole matrix).
    for (const [from, to] of [[0, entries.length], [0, 500], [700, 1212]] as const) {
      const count = matrix.scan(from, to);
      const kept = new Map<number, number>();
      for (let i = 0; i < count; i++) kept.set(matrix.candidateRows()[i]!, matrix.candidateBounds()[i]!);
      const matching = entries.slice(from, to).filter((entry) => entry.exact >= entry.semantic.minSimilarity);
      expect(matching.length).toBeGreaterThan((to - from) / 8);
      for (const entry of matching) {
        expect(kept.has(entry.id), `row ${entry.id}`).toBe(true);
        expect(kept.get(entry.id)!).toBeGreaterThanOrEqual(entry.exact);
      }
      expect([...kept.keys()].every((row) => row >= from && row < to)).toBe(true);
      expect(count).toBeLessThan(matching.length * 1.2);
    }
  });

  it('clusters a large list: scans a fraction of its rows, and finds the rows near the conversation, in rank order', () => {
    const dimensions = 100;
    // 60 topics of 70 line items each, every line item its topic plus noise of its own.
    const { topics, near } = seededTopics(dimensions, 7, 60);
    const entryNear = (topic: number) => ({ topic, expectedValue: 1, semantic: { vector: near(topics[topic]!, 0.5), minSimilarity: 0.6 } });
    const entries = Array.from({ length: 4200 }, (_, rank) => entryNear(rank % topics.length));
    expect(entries.length).toBeGreaterThanOrEqual(CLUSTERED_FROM_ROWS);
    const matrix = new SemanticMatrix<(typeof entries)[number]>(dimensions);
    matrix.fill(entries);
    expect(matrix.clustered).toBe(true);
    // Line items added later join the nearest cluster without clustering again.
    const added = [...entries, ...Array.from({ length: 30 }, () => entryNear(3))];
    matrix.fill(added);

    for (const topic of [0, 3, 17, 59]) {
      const conversation = near(topics[topic]!, 0.5);
      const matching = added.flatMap((entry, rank) => (similarity(conversation, entry.semantic.vector) >= entry.semantic.minSimilarity ? [rank] : []));
      expect(matching.length).toBeGreaterThan(40);
      expect(matrix.prepare(conversation)).toBe(true);
      for (const [from, to] of [[0, added.length], [1000, 3000]] as const) {
        const count = matrix.scan(from, to);
        const kept = [...matrix.candidateRows().subarray(0, count)];
        expect(kept).toEqual([...kept].sort((a, b) => a - b));
        expect(kept.every((rank) => rank >= from && rank < to)).toBe(true);
        for (const rank of matching.filter((rank) => rank >= from && rank < to)) expect(kept, `rank ${rank}`).toContain(rank);
      }
      // The centres plus a few clusters' members, not the whole list: about sqrt(n)/2 clusters (32
      // of about 130 rows), 4 probed, in each of the two scans (1,066 rows of 4,230).
      expect(matrix.scannedRows).toBeLessThan(added.length / 3);
    }
  });

  it.each([[4200, 'clustered'], [600, 'scanned whole']] as const)(
    'lays out a patched and a reordered list of %i rows (%s) as filling it again does: rows taken out and put in at their ranks, rows reordered aside',
    (rows, _layout) => {
      const dimensions = 100;
      const { random, topics, near } = seededTopics(dimensions, rows, 40);
      const entryNear = (topic: number) => {
        const vector = near(topics[topic]!, 0.6);
        return { expectedValue: random(), semantic: { vector, minSimilarity: 0.3 + 0.4 * random() } };
      };
      type Entry = ReturnType<typeof entryNear>;
      // Line items that say the same thing share a vector: the same object, or an equal copy (a row of their own when scanned whole, one row per vector when clustered).
      const sharing = (entry: Entry, copy: boolean): Entry => ({ expectedValue: random(), semantic: { vector: copy ? Float32Array.from(entry.semantic.vector) : entry.semantic.vector, minSimilarity: 0.3 + 0.4 * random() } });
      const distinct = Array.from({ length: rows / 2 }, (_, i) => entryNear(i % topics.length));
      let list: Entry[] = [...distinct, ...distinct.map((entry, i) => sharing(entry, i % 2 === 0))].sort((a, b) => b.expectedValue - a.expectedValue);
      // Patched, and filled again from the same clustering (the same list, so the same k-means) at each step.
      const patched = new SemanticMatrix<Entry>(dimensions);
      const filled = new SemanticMatrix<Entry>(dimensions);
      patched.fill(list);
      filled.fill(list);
      expect(patched.clustered).toBe(rows >= CLUSTERED_FROM_ROWS);
      expect(patched.sameVector.some((next) => next >= 0)).toBe(rows >= CLUSTERED_FROM_ROWS);
      const sameScans = () => {
        expect([...patched.expectedValues.subarray(0, list.length)]).toEqual([...filled.expectedValues.subarray(0, list.length)]);
        expect([...patched.minSimilarities.subarray(0, list.length)]).toEqual([...filled.minSimilarities.subarray(0, list.length)]);
        expect(patched.vectors.every((vector, rank) => vector === list[rank]!.semantic.vector)).toBe(true);
        expect([...patched.sameVector]).toEqual([...filled.sameVector]);
        for (let topic = 0; topic < topics.length; topic += 3) {
          const conversation = entryNear(topic).semantic.vector;
          expect(patched.prepare(conversation)).toBe(filled.prepare(conversation));
          for (const [from, to] of [[0, list.length], [rows / 3, rows / 2]] as const) {
            const count = patched.scan(from, to);
            expect(count).toBe(filled.scan(from, to));
            expect(patched.scannedRows).toBe(filled.scannedRows);
            const candidates = (matrix: SemanticMatrix<Entry>) => [...matrix.candidateRows().subarray(0, count)].map((rank, i) => `${rank}:${matrix.candidateBounds()[i]}`);
            // Filled again, the filled matrix's candidates are as fresh: the patched one's must be the same, bounds included.
            expect(candidates(patched)).toEqual(candidates(filled));
          }
          if (patched.clustered) sameTopRanks(conversation);
        }
      };
      // The first ranks' rows bounded in one scan (SemanticMatrix.scanTopRanks): as a fresh fill's, and
      // every line item of them similar enough found at its row (its vector's first rank) with a bound at least its similarity.
      let topMatches = 0;
      const sameTopRanks = (conversation: Float32Array) => {
        const topCandidates = (matrix: SemanticMatrix<Entry>, ranks: number) => {
          const count = matrix.scanTopRanks(conversation, ranks);
          return count < 0 ? undefined : new Map([...matrix.topCandidateRanks().subarray(0, count)].map((rank, i) => [rank, matrix.topCandidateBounds()[i]!]));
        };
        for (const ranks of [1, 20, TOP_RANKS]) {
          const found = topCandidates(patched, ranks)!;
          expect(found).toEqual(topCandidates(filled, ranks));
          expect([...found.keys()]).toEqual([...found.keys()].sort((a, b) => a - b));
          const rowOf = new Int32Array(ranks).fill(-1);
          for (let rank = 0; rank < ranks; rank++) {
            if (rowOf[rank] === -1) for (let next = rank; next >= 0 && next < ranks; next = patched.sameVector[next]!) rowOf[next] = rank;
            const exact = similarity(conversation, list[rank]!.semantic.vector);
            if (exact < list[rank]!.semantic.minSimilarity) continue;
            topMatches += 1;
            expect(found.has(rowOf[rank]!), `rank ${rank}`).toBe(true);
            expect(found.get(rowOf[rank]!)!).toBeGreaterThanOrEqual(exact);
          }
        }
        expect(topCandidates(patched, TOP_RANKS + 1)).toBeUndefined();
      };
      const sameAs = (rank: number) => list.flatMap((entry, other) => (entry.semantic.vector.every((x, d) => x === list[rank]!.semantic.vector[d]) ? [other] : []));
      // One out; one in at the top, one at the bottom; one changed (out and in again); many (laid out again by fill); none in this list.
      const steps: Array<() => { out: number[]; in: Entry[] }> = [
        // A vector's first line item out (its row now ranked as the next one's); one in with another's vector, ranked first of it; a copy and the same object at the bottom.
        () => ({
          out: [list.findIndex((_, rank) => sameAs(rank)[0] === rank && sameAs(rank).length > 1)],
          in: [{ ...sharing(list[40]!, true), expectedValue: 3 }, { ...sharing(list[41]!, true), expectedValue: -2 }, { ...sharing(list[42]!, false), expectedValue: -3 }],
        }),
        // Every line item of one vector out; two new line items with one new vector in.
        () => {
          const entry = entryNear(11);
          return { out: sameAs(50), in: [entry, sharing(entry, true)] };
        },
        () => ({ out: [17], in: [] }),
        () => ({ out: [], in: [{ ...entryNear(2), expectedValue: 2 }, { ...entryNear(5), expectedValue: -1 }] }),
        () => ({ out: [0, rows - 1, 250], in: [entryNear(7), entryNear(7), entryNear(30)] }),
        () => ({ out: Array.from({ length: 20 }, (_, i) => i * 11), in: Array.from({ length: 20 }, () => entryNear(9)) }),
        () => ({ out: [3], in: [] }),
      ];
      for (const stepOf of steps) {
        const step = stepOf();
        const removed = new Set(step.out.map((rank) => list[rank]!));
        const next = [...list.filter((entry) => !removed.has(entry)), ...step.in].sort((a, b) => b.expectedValue - a.expectedValue);
        patched.update(next, removed, new Set(step.in));
        filled.fill(next);
        list = next;
        sameScans();
      }
      // A patch of other line items (in another list) leaves this one as it was.
      patched.update(list, new Set([entryNear(1)]), new Set([entryNear(1)]));
      sameScans();
      // A rerank: new expected values, so a new order of the same line items, laid out in steps
      // into the spare rows (each row at its first line item's new rank, its line items chained anew)
      // while serves scan the rows as they were; then patched again from that layout.
      for (let round = 0; round < 2; round++) {
        const values = new Map(list.map((entry) => [entry, random() * 4 - 2]));
        const next = [...list].sort((a, b) => values.get(b)! - values.get(a)!);
        const rankNow = new Map(list.map((entry, rank) => [entry, rank]));
        const reorder = patched.reorder(Int32Array.from(next, (entry) => rankNow.get(entry)!), Float64Array.from(next, (entry) => values.get(entry)!), 64);
        let yields = 0;
        for (const _ of reorder.steps) {
          yields += 1;
          sameScans();
        }
        expect(yields).toBeGreaterThanOrEqual(Math.floor(list.length / 64) - 1);
        expect(reorder.stale()).toBe(false);
        for (const entry of next) entry.expectedValue = values.get(entry)!;
        reorder.commit(next);
        filled.fill(next);
        list = next;
        sameScans();
        const step = steps[round]!();
        const removed = new Set(step.out.map((rank) => list[rank]!));
        const patchedNext = [...list.filter((entry) => !removed.has(entry)), ...step.in].sort((a, b) => b.expectedValue - a.expectedValue);
        patched.update(patchedNext, removed, new Set(step.in));
        filled.fill(patchedNext);
        list = patchedNext;
        sameScans();
      }
      expect(topMatches > 100).toBe(rows >= CLUSTERED_FROM_ROWS);
    },
  );

  it('with a trainer, scans a large list whole (exactly) until its clusters are trained, then as a list it clustered itself', async () => {
    const dimensions = 100;
    const { topics, near: nearCentre } = seededTopics(dimensions, 23, 50);
    const near = (topic: number) => nearCentre(topics[topic]!, 0.5);
    const entries = Array.from({ length: 3000 }, (_, rank) => ({ expectedValue: 3000 - rank, semantic: { vector: near(rank % topics.length), minSimilarity: 0.6 } }));
    type Entry = (typeof entries)[number];
    const aside = new SemanticMatrix<Entry>(dimensions, CLUSTERED_FROM_ROWS, clustersInWorker(dimensions, silentLog));
    const itself = new SemanticMatrix<Entry>(dimensions);
    aside.fill(entries);
    itself.fill(entries);
    expect(itself.clustered).toBe(true);
    expect(aside.clustered).toBe(false);
    // Meanwhile every row is scanned: everything similar enough is found, as comparing every line item finds it.
    const conversation = near(7);
    const matching = entries.flatMap((entry, rank) => (similarity(conversation, entry.semantic.vector) >= entry.semantic.minSimilarity ? [rank] : []));
    expect(matching.length).toBeGreaterThan(20);
    expect(aside.prepare(conversation)).toBe(true);
    const count = aside.scan(0, entries.length);
    for (const rank of matching) expect([...aside.candidateRows().subarray(0, count)]).toContain(rank);
    expect(aside.scannedRows).toBe(entries.length);
    // A change meanwhile is patched in; the clusters, once trained, are the ones the list would have had.
    const added = { expectedValue: 1500.5, semantic: { vector: near(7), minSimilarity: 0.6 } };
    const list = [...entries.slice(0, 1500), added, ...entries.slice(1500)];
    aside.update(list, new Set(), new Set([added]));
    itself.update(list, new Set(), new Set([added]));
    await aside.trained();
    expect(aside.clustered).toBe(true);
    for (let topic = 0; topic < topics.length; topic += 5) {
      const probe = near(topic);
      expect(aside.prepare(probe)).toBe(itself.prepare(probe));
      const found = aside.scan(0, list.length);
      expect(found).toBe(itself.scan(0, list.length));
      expect(aside.scannedRows).toBe(itself.scannedRows);
      expect([...aside.candidateRows().subarray(0, found)]).toEqual([...itself.candidateRows().subarray(0, found)]);
    }
  });

  it('scans a list whole once its trainer failed, and does not ask the trainer again at the next changes', async () => {
    const dimensions = 40;
    const { random } = seededTopics(dimensions, 31, 0);
    const entries = Array.from({ length: 3000 }, (_, rank) => ({ expectedValue: 3000 - rank, semantic: { vector: unitVector(dimensions, random), minSimilarity: 0.2 } }));
    type Entry = (typeof entries)[number];
    let asked = 0;
    const matrix = new SemanticMatrix<Entry>(dimensions, CLUSTERED_FROM_ROWS, () => {
      asked += 1;
      return Promise.reject(new Error('the worker exited'));
    });
    matrix.fill(entries);
    await matrix.trained();
    expect(asked).toBe(1);
    // A change patched in, a list laid out again and one that doubled: each would have asked again.
    const added = { expectedValue: 0, semantic: { vector: unitVector(dimensions, random), minSimilarity: 0.2 } };
    matrix.update([...entries, added], new Set(), new Set([added]));
    matrix.fill([...entries].reverse());
    matrix.fill([...entries, ...entries.map((entry) => ({ ...entry }))]);
    await matrix.trained();
    expect(asked).toBe(1);
    expect(matrix.clustered).toBe(false);
    // Scanned whole: exact.
    const conversation = entries[10]!.semantic.vector;
    expect(matrix.prepare(conversation)).toBe(true);
    const count = matrix.scan(0, entries.length * 2);
    expect(matrix.scannedRows).toBe(entries.length * 2);
    expect([...matrix.candidateRows().subarray(0, count)]).toContain(10);
  });

  it('warns once of a training that failed (clustersInWorker), however often it is asked', async () => {
    const warnings: unknown[] = [];
    const log = { warn: (...args: unknown[]) => warnings.push(args) } as never;
    // Vectors longer than the matrix's dimensions: training them throws (a RangeError), as a worker could fail.
    const trainer = clustersInWorker(4, log);
    const vectors = Array.from({ length: 3000 }, (_, i) => Float32Array.from({ length: 40 }, (_, d) => Math.sin(i + d)));
    await expect(trainer(vectors)).rejects.toThrow();
    await expect(trainer(vectors)).rejects.toThrow();
    expect(warnings).toHaveLength(1);
  });

  it('probes no cluster when even the nearest centre is far below the lowest min_similarity, and does when a line item asks for less', () => {
    const dimensions = 100;
    const { random, topics, near } = seededTopics(dimensions, 11, 60);
    const entries = Array.from({ length: 4200 }, (_, rank) => ({ expectedValue: 1, semantic: { vector: near(topics[rank % topics.length]!, 0.5), minSimilarity: 0.6 } }));
    const matrix = new SemanticMatrix<(typeof entries)[number]>(dimensions);
    matrix.fill(entries);
    expect(matrix.clustered).toBe(true);
    // A random direction: in 100 dimensions no centre comes near it (similarities around 0.1).
    const unrelated = unitVector(dimensions, random);
    const best = Math.max(...entries.map((entry) => similarity(unrelated, entry.semantic.vector)));
    expect(best).toBeLessThan(0.6 - 0.1);
    expect(matrix.prepare(unrelated)).toBe(false);
    expect(matrix.scan(0, entries.length)).toBe(0);
    // A conversation near a topic is probed as before.
    expect(matrix.prepare(near(topics[5]!, 0.5))).toBe(true);
    expect(matrix.scan(0, entries.length)).toBeGreaterThan(0);
    // One line item that asks for little similarity lowers the floor: the unrelated conversation is probed, and that line item found.
    const lenient = { expectedValue: 1, semantic: { vector: near(unrelated, 0.3), minSimilarity: 0.05 } };
    const withLenient = [lenient, ...entries];
    matrix.fill(withLenient);
    expect(matrix.prepare(unrelated)).toBe(true);
    const count = matrix.scan(0, withLenient.length);
    expect([...matrix.candidateRows().subarray(0, count)]).toContain(0);
  });
});
