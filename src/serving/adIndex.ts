import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { CREATIVE_FIELDS, creativeRowOf, type CatalogRows, type CreativeRow, type LineItemRow } from './catalogQueries.js';
import { readDataRow } from '../store/dataRows.js';
import { expectedValuePerImpression, type DeliveryStats } from './expectedValue.js';
import { bidInUsd, eligiblePriceModels, lineItemCurrency, priceNanos, type PriceModel } from '../money/priceModels.js';
import { usdToNanos } from '../money/nanoUsd.js';
import type { SpendCounter } from './spendPacing.js';
import type { CapCounts, UserCounts } from './frequencyCounts.js';
import { frequencyCapWindows } from '../management/frequencyCapSchema.js';
import { minutesOf, weekdays } from '../management/daypartSchema.js';
import { wordHash, wordsOf } from './contextWords.js';
import { FirstWordMap } from './firstWordMap.js';
import { hashSecret } from '../http/secretHash.js';
import { lineItemVector, type SemanticModel } from '../semantic/semanticModel.js';
import { DEFAULT_MIN_SIMILARITY } from '../semantic/semanticDefaults.js';
import type { BrandSafety } from '../semantic/brandSafety.js';
import { SemanticMatrix } from '../semantic/semanticMatrix.js';
import { clustersInWorker } from '../semantic/clustersInWorker.js';
import type { StoredSemantic } from './semanticSnapshot.js';
import { hostOf } from './destinationHost.js';
import { currentLanguageCode } from '../intlNames.js';

/** The render payload of a contextual card, built once per creative when the index is built. */
export interface ContextualCardRender {
  title: string;
  body: string;
  cta: string;
  brand_name: string;
  image_url?: string;
  /** The destination's host name, for the card's "from" line; the click itself always goes through click_url. */
  display_url: string;
  label: 'Sponsored';
}

export interface ServableCreative {
  id: string;
  render: ContextualCardRender;
  /** Where its clicks go; kept so clicks still redirect while Postgres is down (see IndexedDestinations). */
  destinationUrl: string;
}

/**
 * A line item's creatives as a full read and the catalog snapshot keep them: their rows as the
 * engine's DataRow messages (src/store/dataRows.ts), in a buffer shared by every line item of the
 * read, parsed the first time the line item is served (creativesOf). Parsing 150,000 creatives and
 * building their renders was half of a start's catalog load at 100,000 line items, and most line
 * items are never the winner of a serve. A group is made only for a line item with a row whose
 * destination isServableDestination accepts (creativeRanges.ts), so what a group reads is never empty.
 */
export class CreativeGroup {
  constructor(
    private readonly bytes: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly brandName: string,
  ) {}

  read(): ServableCreative[] {
    const bounds = new Int32Array(CREATIVE_FIELDS.length * 2);
    const creatives: ServableCreative[] = [];
    for (let at = this.start; at < this.end; ) {
      at = readDataRow(this.bytes, at, bounds);
      const creative = servableCreative(creativeRowOf(this.bytes, bounds), this.brandName);
      if (creative) creatives.push(creative);
    }
    return creatives;
  }
}

/**
 * Catalog rows as the index is built from them; from a full read or the catalog snapshot, each line
 * item's creatives unparsed, in lineItems' order (creatives is then empty). From the snapshot also,
 * when kept for these rows and this model, the opted-in line items' vectors and the semantic
 * lists' clusters (semanticSnapshot.ts): then nothing is embedded or clustered again.
 */
export type IndexRows = CatalogRows & { creativeGroups?: Array<CreativeGroup | undefined>; semantic?: StoredSemantic };

/** A line item's creatives, parsed now when they came from a full read or the catalog snapshot and this is their first use. */
export function creativesOf(entry: LineItemEntry): ServableCreative[] {
  const creatives = entry.creatives;
  if (!(creatives instanceof CreativeGroup)) return creatives;
  return (entry.creatives = creatives.read());
}

/** A keyword (one or more words) that some line item includes or excludes. */
export interface Phrase {
  words: string[];
  /** wordHash of each word. */
  hashes: number[];
  /** The request that last found this phrase in its context (see selectAd). */
  stamp: number;
  /** The line items that include this keyword, best expected value first. */
  includedBy: RankedLists;
}

export interface LineItemEntry {
  id: string;
  campaignId: string;
  model: PriceModel;
  bidUsd: number;
  priceNanos: number;
  budgetNanos: number;
  /** The lifetime budget; Infinity when there is none. */
  lifetimeBudgetNanos: number;
  /** Even pacing (else asap): today's budget is released over the day, see dailyAllowanceShare. */
  evenPacing: boolean;
  /** The campaign's flight, [startsAtMs, endsAtMs), in ms since the epoch; open ends are -/+Infinity. */
  startsAtMs: number;
  endsAtMs: number;
  /** Read them with creativesOf: from a full read or the catalog snapshot they stay unparsed until the line item is first served. */
  creatives: ServableCreative[] | CreativeGroup;
  nextCreative: number;
  placementsInclude: Set<string> | null;
  placementsExclude: Set<string> | null;
  languages: Set<string> | null;
  countriesInclude: Set<string> | null;
  countriesExclude: Set<string> | null;
  /** Dayparts: the zone, and per local weekday (0 = Monday) [start, end) minute pairs, flattened; null when any time. */
  dayparts: { timezone: string; minutesByDay: number[][] } | null;
  includePhrases: Phrase[];
  /**
   * includePhrases' length and its first two (null past its end), on the entry itself: the keyword
   * walk (selectAd) reads them for every line item it visits, and the array and its elements were
   * two more cache misses a visit under load.
   */
  includeCount: number;
  firstInclude: Phrase | null;
  secondInclude: Phrase | null;
  excludePhrases: Phrase[];
  /**
   * The frequency cap: impressions per user in the window, the users' impressions (`counts`) and this
   * instance's serves still waiting for theirs (`outstanding`), both shared with FrequencyCounts; null when uncapped.
   */
  frequencyCap: { impressions: number; counts: UserCounts; outstanding: UserCounts } | null;
  /** Today's spend (shared with pacing, which keeps it current). */
  spend: SpendCounter;
  /** Delivery history (shared with the learner), from which expectedValue is re-estimated. */
  stats: DeliveryStats;
  /** Expected USD per impression, as of the last rerank. */
  expectedValue: number;
  /** Breaks exact ties in score; redrawn at every rerank so no tied line item always loses. */
  tieBreak: number;
  /** The request that last considered this line item (see selectAd). */
  seenStamp: number;
  /** Semantic matching, when the line item opted in and word vectors are loaded. */
  semantic: SemanticTarget | null;
}

/**
 * What the billing ceilings read of a line item (src/tracking/billingCeiling.ts): its budgets, its
 * spend counter and its frequency cap's counts, and its country targeting (outside_target_country).
 * An index entry is one; so is what is kept of a line item that left the index before this process
 * started (billedLineItem), without its countries: its events are not judged by them.
 */
export type BilledLineItem = Pick<LineItemEntry, 'budgetNanos' | 'lifetimeBudgetNanos' | 'spend' | 'frequencyCap'> &
  Partial<Pick<LineItemEntry, 'countriesInclude' | 'countriesExclude'>>;

/** What a line item says (its keywords and creatives) as a unit vector, and how similar a serve must be. */
interface SemanticTarget {
  vector: Float32Array;
  minSimilarity: number;
}

export interface PlacementEntry {
  publisherId: string;
  certified: boolean;
}

/** Line items ranked by expected value, best first: all of them for certified placements, CPC and CPA only for the rest. */
export interface RankedLists {
  certified: LineItemEntry[];
  uncertified: LineItemEntry[];
}

/** Everything /v1/serve needs, in memory: the serve path never queries a database. */
export interface AdIndex {
  version: string;
  publisherByTokenHash: Map<string, string>;
  /** Live tokens already seen by this index, so each is hashed once (see publisherOfToken). */
  publisherByKnownToken: Map<string, string>;
  placements: Map<string, PlacementEntry>;
  lineItems: LineItemEntry[];
  /** Line items without keyword targeting and without a placement list: candidates for every serve. */
  open: RankedLists;
  /** Line items without keyword targeting that list the placements they run on. */
  openByPlacement: Map<string, RankedLists>;
  phrases: Phrase[];
  /** Every include and exclude keyword, by the wordHash of its first word. */
  phrasesByFirstWord: FirstWordMap<Phrase>;
  /** Line items that opted into semantic matching; undefined model when no word vectors are loaded. */
  semantic: RankedLists;
  /** The same lists as int8 matrices in the same order, scanned per serve (see semanticMatrix.ts); undefined when none opted in. */
  semanticMatrices: { certified: SemanticMatrix<LineItemEntry>; uncertified: SemanticMatrix<LineItemEntry> } | undefined;
  semanticModel: SemanticModel | undefined;
  /** Sensitive topics that veto every ad; undefined turns the check off. */
  brandSafety: BrandSafety | undefined;
  /** Whether any line item targets countries: only then does a serve look its address up. */
  countryTargeting: boolean;
}

export interface IndexBuildDeps {
  spendCounterFor(lineItemId: string): SpendCounter;
  userCountsFor(lineItemId: string, per: (typeof frequencyCapWindows)[number]): CapCounts;
  statsFor(lineItemId: string): DeliveryStats;
  /** USD for an amount in a currency; undefined when the currency cannot be converted. */
  toUsd(amount: number, currency: string): number | undefined;
  /** Word vectors for semantic matching; without them, opted-in line items match by keywords only. */
  semanticModel?: SemanticModel;
  brandSafety?: BrandSafety;
  /** Semantic lists this long or longer are searched through clusters (semanticMatrix.ts); the evaluation compares with exact search. */
  semanticClusteredFrom?: number;
  /**
   * Clusters trained in a worker thread while the lists are scanned whole (SemanticMatrix's
   * trainer), a failure warned of on this log: the service's, so that a start does not wait for the
   * k-means; else trained in the build.
   */
  semanticClustersInWorker?: FastifyBaseLogger;
  /**
   * Told of each active line item a build or patch leaves out of the index (a SkipReason): its links,
   * signed while it could still be served, may still be used (indexedDestinations.ts).
   */
  unservable?(row: LineItemRow): void;
}

/** Line items left out of the index, by reason: an operator's first clue when an ad does not show. */
export type SkipReason = 'no_bid' | 'no_budget' | 'unknown_currency' | 'no_creative' | 'bad_targeting' | 'price_out_of_range';

const storedPhrases = z.array(z.string()).optional();
const storedIncludeExclude = z.object({ include: storedPhrases, exclude: storedPhrases }).optional();

/**
 * line_items.targeting as management's targetingSchema writes it (keywords lowercased, languages
 * ISO 639-1). Read with this plain shape check, not that schema: its checks were made when the
 * targeting was written, and re-running them (language names through Intl) would make a rebuild
 * of 100,000 line items take seconds instead of a fraction of one. Checked with zod's compiled
 * `validate` (generated code, not the runtime parser that safeParse runs with a payload object per
 * schema), which returns no copy of the row: the build reads the row's own object.
 */
const storedTargeting = z.compile(z.object({
  keywords: storedIncludeExclude,
  placements: storedIncludeExclude,
  languages: storedPhrases,
  semantic: z.object({ enabled: z.boolean(), min_similarity: z.number().optional() }).optional(),
  countries: storedIncludeExclude,
  dayparts: z
    .object({
      timezone: z.string(),
      windows: z.array(z.object({ days: z.array(z.enum(weekdays)), start: z.string(), end: z.string() })),
    })
    .optional(),
}));

const storedFrequencyCap = z.compile(z.object({ impressions: z.number().int().positive(), per: z.enum(frequencyCapWindows) }).nullable());
const YIELD_EVERY = 5000;

/**
 * Builds the index from the catalog. Yields to the event loop every few thousand line items so
 * that serving goes on while a large catalog is rebuilt.
 */
export async function buildAdIndex(
  version: string,
  rows: IndexRows,
  deps: IndexBuildDeps,
): Promise<{ index: AdIndex; skipped: Partial<Record<SkipReason, number>>; vectors: Array<Float32Array | undefined> }> {
  const index: AdIndex = {
    version,
    publisherByTokenHash: new Map(rows.tokens.map((token) => [token.token_hash, token.publisher_id])),
    publisherByKnownToken: new Map(),
    placements: new Map(
      rows.placements.map((placement) => [
        placement.id,
        { publisherId: placement.publisher_id, certified: placement.certification === 'certified' },
      ]),
    ),
    lineItems: [],
    open: { certified: [], uncertified: [] },
    openByPlacement: new Map(),
    phrases: [],
    phrasesByFirstWord: new FirstWordMap(),
    semantic: { certified: [], uncertified: [] },
    semanticMatrices: undefined,
    semanticModel: deps.semanticModel,
    brandSafety: deps.brandSafety,
    countryTargeting: false,
  };
  const phrases = new Map<string, Phrase>();
  const phraseFor = (words: string[]): Phrase => internPhrase(index, phrases, words);

  const creativesByLineItem = groupCreatives(rows.creatives);
  const groups = rows.creativeGroups;
  const skipped: Partial<Record<SkipReason, number>> = {};
  // Each row's vector (undefined: none), for the catalog snapshot to keep (semanticSnapshot.ts).
  const vectors = new Array<Float32Array | undefined>(rows.lineItems.length);
  const stored = rows.semantic?.vectors;
  for (let i = 0; i < rows.lineItems.length; i++) {
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    const row = rows.lineItems[i]!;
    const built = buildEntry(row, groups ? groups[i] : creativesByLineItem.get(row.id), deps, phraseFor, stored?.[i]);
    if (typeof built === 'string') {
      skipped[built] = (skipped[built] ?? 0) + 1;
      deps.unservable?.(row);
      continue;
    }
    built.expectedValue = expectedValuePerImpression(built.model, built.bidUsd, built.stats);
    built.tieBreak = Math.random();
    vectors[i] = built.semantic?.vector;
    index.lineItems.push(built);
    if (built.countriesInclude !== null || built.countriesExclude !== null) index.countryTargeting = true;
  }
  // Ranked once, then put in their lists in that order: every list comes out ranked without a sort
  // of its own (a line item is in a list per keyword and certification: sorting those lists one by
  // one compared four times as many entries).
  for (const entry of rankedOrder(index.lineItems)) for (const lists of postingsOf(index, entry)) addToRanked(lists, entry);
  if (deps.semanticModel && index.semantic.certified.length > 0) {
    index.semanticMatrices = semanticMatrices(deps.semanticModel, deps);
    for (const list of ['certified', 'uncertified'] as const) {
      const clusters = rows.semantic?.clusters[list];
      if (clusters) index.semanticMatrices[list].restoreClusters(clusters, vectors);
      index.semanticMatrices[list].fill(index.semantic[list]);
    }
  }
  return { index, skipped, vectors };
}

/** Empty semantic matrices for the index's two lists, as the deps ask (SemanticMatrix's trainer). */
export function semanticMatrices(model: SemanticModel, deps: IndexBuildDeps): NonNullable<AdIndex['semanticMatrices']> {
  // One trainer for both lists: a worker that fails is warned of once.
  const trainer = deps.semanticClustersInWorker && clustersInWorker(model.dimensions, deps.semanticClustersInWorker);
  const matrix = () => new SemanticMatrix<LineItemEntry>(model.dimensions, deps.semanticClusteredFrom, trainer);
  return { certified: matrix(), uncertified: matrix() };
}

/** The keyword (an interned Phrase) for these words, added to the index's phrase lookups when new. */
export function internPhrase(index: AdIndex, phrases: Map<string, Phrase>, words: string[]): Phrase {
  const key = words.join(' ');
  let phrase = phrases.get(key);
  if (!phrase) {
    phrase = { words, hashes: words.map(wordHash), stamp: 0, includedBy: { certified: [], uncertified: [] } };
    phrases.set(key, phrase);
    index.phrases.push(phrase);
    index.phrasesByFirstWord.add(phrase.hashes[0]!, phrase);
  }
  return phrase;
}

/**
 * The ranked lists a line item belongs in: its keywords' lists, else the
 * lists of the placements it names, else the open lists; and the semantic lists when it opted in.
 */
export function postingsOf(index: AdIndex, entry: LineItemEntry): RankedLists[] {
  // An opted-in line item without keywords is served where the conversation is like what it says, not everywhere.
  const lists: RankedLists[] = entry.semantic ? [index.semantic] : [];
  if (entry.includePhrases.length > 0) {
    for (const phrase of entry.includePhrases) lists.push(phrase.includedBy);
  } else if (entry.semantic) {
    return lists;
  } else if (entry.placementsInclude) {
    for (const placementId of entry.placementsInclude) {
      let byPlacement = index.openByPlacement.get(placementId);
      if (!byPlacement) index.openByPlacement.set(placementId, (byPlacement = { certified: [], uncertified: [] }));
      lists.push(byPlacement);
    }
  } else {
    lists.push(index.open);
  }
  return lists;
}

/** The index entry of a line item row and its creatives (rows, or the snapshot's group), or why the row cannot be served. */
export function buildEntry(
  row: LineItemRow,
  creativeRows: CreativeRow[] | CreativeGroup | undefined,
  deps: IndexBuildDeps,
  phraseFor: (words: string[]) => Phrase,
  storedVector?: Float32Array,
): LineItemEntry | SkipReason {
  const bid = bidInUsd(row, deps.toUsd);
  if (bid === 'no_bid') return 'no_bid';
  const budgets = budgetsInNanos(row, deps.toUsd);
  if (budgets === 'no_budget') return 'no_budget';
  if (bid === 'unknown_currency' || budgets === 'unknown_currency') return 'unknown_currency';
  const { model, bidUsd } = bid;
  if (!(bidUsd > 0)) return 'no_bid';
  // The links carry the price per event as a whole number of nano-USD (trackingClaimsBytes.ts): past
  // 2^53 (a CPC or CPA bid above about 9,007,199 USD) it cannot be signed exactly, so such a line
  // item is never served rather than making every serve that picks it fail. One below 1 nano-USD
  // (a bid stored before management refused it, or a rate changed since) would serve for nothing,
  // past every budget: left out too.
  const price = priceNanos(model, bidUsd);
  if (!Number.isSafeInteger(price) || price < 1) return 'price_out_of_range';
  // A row that does not have the shape is left out, not guessed at.
  const targeting = row.targeting ?? {};
  if (!storedTargeting.validate(targeting)) return 'bad_targeting';
  const cap = row.frequency_cap ?? null;
  if (!storedFrequencyCap.validate(cap)) return 'bad_targeting';
  // A group is never empty (see CreativeGroup), and it stays unparsed until the line item is first
  // served, opted into semantic matching or not: the vector reads its creatives' text once, here,
  // and lets the parsed creatives go (kept, they were about 0.9 KB of heap a line item: 325 against
  // 239 MB heapUsed at 100,000 opted-in line items; bench/README.md, "Semantic: session 33").
  const creatives = creativeRows instanceof CreativeGroup ? creativeRows : (creativeRows ?? []).flatMap((creative) => servableCreative(creative, row.brand_name) ?? []);
  if (Array.isArray(creatives) && creatives.length === 0) return 'no_creative';

  const includeKeywords = targeting.keywords?.include ?? [];
  const includePhrases = uniquePhrases(includeKeywords, phraseFor);
  // Keywords that hold no word at all (only punctuation) can never match: such a line item is
  // never served rather than silently served everywhere.
  if (includeKeywords.length > 0 && includePhrases.length === 0) return 'bad_targeting';
  return {
    id: row.id,
    campaignId: row.campaign_id,
    model,
    bidUsd,
    priceNanos: price,
    ...budgets,
    evenPacing: row.budget_pacing !== 'asap',
    startsAtMs: row.starts_at?.getTime() ?? -Infinity,
    endsAtMs: row.ends_at?.getTime() ?? Infinity,
    creatives,
    nextCreative: 0,
    placementsInclude: nonEmptySet(targeting.placements?.include),
    placementsExclude: nonEmptySet(targeting.placements?.exclude),
    languages: nonEmptySet(targeting.languages?.map((language) => currentLanguageCode(language.toLowerCase()))),
    countriesInclude: nonEmptySet(targeting.countries?.include),
    countriesExclude: nonEmptySet(targeting.countries?.exclude),
    dayparts: targeting.dayparts ? { timezone: targeting.dayparts.timezone, minutesByDay: minutesByDay(targeting.dayparts.windows) } : null,
    includePhrases,
    excludePhrases: uniquePhrases(targeting.keywords?.exclude ?? [], phraseFor),
    frequencyCap: cap === null ? null : cappedBy(cap.impressions, deps.userCountsFor(row.id, cap.per)),
    spend: deps.spendCounterFor(row.id),
    stats: deps.statsFor(row.id),
    // What the keyword walk reads of each line item it visits, side by side: a cache line or two.
    expectedValue: 0,
    seenStamp: 0,
    includeCount: includePhrases.length,
    firstInclude: includePhrases[0] ?? null,
    secondInclude: includePhrases[1] ?? null,
    tieBreak: 0,
    semantic: semanticTarget(targeting, includeKeywords, creatives, deps.semanticModel, storedVector),
  };
}

/** The columns of a line item's budgets. */
type BudgetColumns = Pick<LineItemRow, 'budget_daily' | 'budget_currency' | 'budget_lifetime'>;

/**
 * A line item's daily and lifetime budgets in nano-USD, as serving, billing and the routes'
 * delivery_stopped_by judge them (lifetime Infinity when none): 'no_budget' without a daily budget
 * or with one that is not above 0, 'unknown_currency' when their currency cannot be converted.
 */
export function budgetsInNanos(
  row: BudgetColumns,
  toUsd: IndexBuildDeps['toUsd'],
): { budgetNanos: number; lifetimeBudgetNanos: number } | 'no_budget' | 'unknown_currency' {
  if (row.budget_daily === null) return 'no_budget';
  const currency = lineItemCurrency(row);
  const budgetUsd = toUsd(Number(row.budget_daily), currency);
  const lifetimeUsd = row.budget_lifetime === null ? Infinity : toUsd(Number(row.budget_lifetime), currency);
  if (budgetUsd === undefined || lifetimeUsd === undefined) return 'unknown_currency';
  if (!(budgetUsd > 0) || !(lifetimeUsd > 0)) return 'no_budget';
  return { budgetNanos: usdToNanos(budgetUsd), lifetimeBudgetNanos: usdToNanos(lifetimeUsd) };
}

/** The columns of a line item its billing ceilings are made of. */
export type CeilingColumns = BudgetColumns & Pick<LineItemRow, 'id' | 'frequency_cap'>;

/**
 * The billing ceilings' figures of a line item that is not in the index (one that left it before
 * this process started: src/serving/retiredLineItems.ts), made as buildEntry makes them, with the
 * same shared spend counter and cap counts; undefined when the columns give it no ceiling its index
 * entry would have had (no budget, or one in a currency that cannot be converted).
 */
export function billedLineItem(row: CeilingColumns, deps: Pick<IndexBuildDeps, 'spendCounterFor' | 'userCountsFor' | 'toUsd'>): BilledLineItem | undefined {
  const budgets = budgetsInNanos(row, deps.toUsd);
  if (typeof budgets === 'string') return undefined;
  const cap = row.frequency_cap ?? null;
  if (!storedFrequencyCap.validate(cap)) return undefined;
  return {
    ...budgets,
    spend: deps.spendCounterFor(row.id),
    frequencyCap: cap === null ? null : cappedBy(cap.impressions, deps.userCountsFor(row.id, cap.per)),
  };
}

function semanticTarget(
  targeting: z.input<typeof storedTargeting>,
  includeKeywords: string[],
  creatives: CreativeGroup | ServableCreative[],
  model: SemanticModel | undefined,
  storedVector: Float32Array | undefined,
): SemanticTarget | null {
  if (!model || !targeting.semantic?.enabled) return null;
  // Read only here, for an opted-in line item whose vector the catalog snapshot did not keep: the parsed copy is let go with this call.
  const vector = storedVector ?? lineItemVector(model, includeKeywords, (creatives instanceof CreativeGroup ? creatives.read() : creatives).map((creative) => creative.render));
  if (!vector) return null;
  return { vector, minSimilarity: targeting.semantic.min_similarity ?? DEFAULT_MIN_SIMILARITY };
}

function minutesByDay(windows: Array<{ days: string[]; start: string; end: string }>): number[][] {
  const byDay: number[][] = weekdays.map(() => []);
  for (const window of windows) {
    for (const day of window.days) byDay[weekdays.indexOf(day as (typeof weekdays)[number])]!.push(minutesOf(window.start), minutesOf(window.end));
  }
  return byDay;
}

function uniquePhrases(keywords: string[], phraseFor: (words: string[]) => Phrase): Phrase[] {
  const found = new Set<Phrase>();
  for (const keyword of keywords) {
    const words = wordsOf(keyword);
    if (words.length > 0) found.add(phraseFor(words));
  }
  return [...found];
}

function servableCreative(row: CreativeRow, brandName: string): ServableCreative | undefined {
  const displayUrl = hostOf(row.destination_url);
  if (displayUrl === undefined) return undefined;
  const render: ContextualCardRender = {
    title: row.title,
    body: row.body,
    cta: row.cta,
    brand_name: brandName,
    ...(row.image_url ? { image_url: row.image_url } : {}),
    display_url: displayUrl,
    label: 'Sponsored',
  };
  return { id: row.id, render, destinationUrl: row.destination_url };
}

export function groupCreatives(rows: CreativeRow[]): Map<string, CreativeRow[]> {
  const byLineItem = new Map<string, CreativeRow[]>();
  for (const row of rows) {
    const list = byLineItem.get(row.line_item_id);
    if (list) list.push(row);
    else byLineItem.set(row.line_item_id, [row]);
  }
  return byLineItem;
}

function nonEmptySet(values: string[] | undefined): Set<string> | null {
  return values && values.length > 0 ? new Set(values) : null;
}

const CERTIFIED_MODELS: ReadonlySet<PriceModel> = new Set(eligiblePriceModels('certified'));
const UNCERTIFIED_MODELS: ReadonlySet<PriceModel> = new Set(eligiblePriceModels('uncertified'));

export function addToRanked(lists: RankedLists, entry: LineItemEntry): void {
  if (CERTIFIED_MODELS.has(entry.model)) lists.certified.push(entry);
  if (UNCERTIFIED_MODELS.has(entry.model)) lists.uncertified.push(entry);
}

/**
 * The publisher of a live bearer token, or undefined. Hashing costs more than the rest of a serve's
 * lookups, so a live token is remembered for the life of this index (a revocation clears the
 * memory, see AdIndexPatcher); a wrong token is never remembered, so guessing cannot grow the map.
 */
export function publisherOfToken(index: AdIndex, token: string): string | undefined {
  let publisherId = index.publisherByKnownToken.get(token);
  if (publisherId === undefined) {
    publisherId = index.publisherByTokenHash.get(hashSecret(token));
    if (publisherId !== undefined) index.publisherByKnownToken.set(token, publisherId);
  }
  return publisherId;
}

/**
 * The entries in rankOrder, sorted as positions in typed arrays of their expected values and
 * tie-breaks: sorting the entries themselves read both fields of two scattered objects a comparison,
 * 85-95 ms at 100,000 line items against 40 (in process, the same order).
 */
function rankedOrder(entries: LineItemEntry[]): LineItemEntry[] {
  const expectedValues = new Float64Array(entries.length);
  const tieBreaks = new Float64Array(entries.length);
  const positions = new Uint32Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    expectedValues[i] = entries[i]!.expectedValue;
    tieBreaks[i] = entries[i]!.tieBreak;
    positions[i] = i;
  }
  // rankOrder's comparison on the copies; a typed array's sort is stable, as an array's is.
  positions.sort((a, b) => expectedValues[b]! - expectedValues[a]! || tieBreaks[b]! - tieBreaks[a]!);
  const ranked = new Array<LineItemEntry>(entries.length);
  for (let i = 0; i < positions.length; i++) ranked[i] = entries[positions[i]!]!;
  return ranked;
}

/** Higher score first; equal scores by tie-break. */
export function ranksBefore(a: LineItemEntry, scoreA: number, b: LineItemEntry, scoreB: number): boolean {
  return scoreA > scoreB || (scoreA === scoreB && a.tieBreak > b.tieBreak);
}

/** The ranked lists' order: best expected value first, exact ties by tie-break. */
export const rankOrder = (a: LineItemEntry, b: LineItemEntry) => b.expectedValue - a.expectedValue || b.tieBreak - a.tieBreak;


function cappedBy(impressions: number, { impressions: counts, outstanding }: CapCounts): LineItemEntry['frequencyCap'] {
  return { impressions, counts, outstanding };
}
