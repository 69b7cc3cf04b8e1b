import { creativesOf, ranksBefore, type AdIndex, type LineItemEntry, type Phrase, type PlacementEntry, type RankedLists, type ServableCreative } from './adIndex.js';
import { WordScan } from './contextWords.js';
import type { FirstWordMap } from './firstWordMap.js';
import { similarity } from '../semantic/semanticModel.js';
import type { BrandSafetyVeto } from '../semantic/brandSafety.js';
import type { SemanticMatrix } from '../semantic/semanticMatrix.js';
import { localTime } from './localClock.js';
import { billingCeilingPassed, ceilingRoomNanos, NOTHING_HELD } from '../money/billingCeilingRule.js';
import { usdToNanos } from '../money/nanoUsd.js';

export interface ServeContext {
  query: string;
  response: string;
  /** ISO 639-1, lowercase; undefined matches every language targeting. */
  language?: string;
  /** The serve's time, ms since the epoch: flights and pacing are judged at it. */
  nowMs: number;
  /** dailyAllowanceShare(nowMs): the share of a day's budget even pacing has released. */
  evenShare: number;
  /** The placement's publisher: its own outstanding serves hold a line item back from it in full, others' only in part (outOfBudget). */
  publisherId?: string;
  /** The serve's keyed user id (userKey); capped line items never serve without one. */
  userKey?: string;
  /** ISO 3166-1 alpha-2 country of user.ip; undefined when unknown (matches no include list). */
  country?: string;
  /**
   * False: no `match` in the selection. The usual serve does not send it (only `explain` requests
   * do), and writing it out was about 1 % of a serve's CPU under load (bench/README.md, "Serve: session 29").
   */
  explain?: boolean;
}

export interface Selection {
  lineItem: LineItemEntry;
  creative: ServableCreative;
  /** Why it won; made while the keywords' stamps are this serve's, so only when the context asks (ServeContext.explain). */
  match?: MatchExplanation;
}

/**
 * Why a line item the conversation matched (an include keyword found, or no keyword targeting) was
 * not eligible for this serve, the first that applies: a price model this uncertified placement may
 * not be served (tCPM needs a certified one), then in heldBackBy's order: outside its flight,
 * its budget spent as paced or its billing ceilings reached (daily, monthly, lifetime), the budget
 * left held by serves still waiting for their events (outstanding_serves), the user at
 * its frequency cap, a capped line item and a serve without user.id, or its other targeting
 * (placement, language, country, daypart, an excluded keyword).
 */
type HeldBackReason = 'certification' | 'flight' | 'budget' | 'outstanding_serves' | 'frequency_cap' | 'no_user_id' | 'targeting';

/** How many matched line items each reason held back; for `explain` requests only. */
export type HeldBack = Partial<Record<HeldBackReason, number>>;

/** Why the line item was chosen: the include keywords found, or the similarity that made it eligible. */
interface MatchExplanation {
  by: 'keywords' | 'similarity' | 'untargeted';
  keywords?: string[];
  similarity?: number;
  min_similarity?: number;
}

/**
 * Contextual relevance: each distinct include keyword found in the query or the response adds half
 * of the line item's expected value, counting at most four keywords (so at most x3). Line items
 * without include keywords score x1.
 */
const RELEVANCE_PER_KEYWORD = 0.5;
const MAX_RELEVANT_KEYWORDS = 4;

export function relevance(matchedKeywords: number): number {
  return 1 + RELEVANCE_PER_KEYWORD * Math.min(matchedKeywords, MAX_RELEVANT_KEYWORDS);
}

/**
 * A similarity match counts as a fraction of one keyword, its cosine similarity: the closer
 * line item wins at equal bids, and a keyword match wins over a similarity match at equal bids.
 */
function similarityRelevance(similar: number): number {
  return relevance(Math.max(0, Math.min(similar, 1)));
}

// Each request marks the keywords it finds, and the line items it considers, with its own stamp:
// nothing is allocated per candidate and nothing has to be cleared afterwards. Requests are
// handled one at a time, so the word buffers are shared too.
let lastStamp = 0;
const queryWords = new WordScan();
const responseWords = new WordScan();

/**
 * The SIF vector of the query and the start of the response (see embedConversation), or undefined
 * without word vectors or known words. The model's buffer: valid until the next serve.
 */
function conversationVector(index: AdIndex): Float32Array | undefined {
  return index.semanticModel?.embedConversation(queryWords, responseWords);
}

/** The best candidate so far of one selection. */
class Best {
  entry: LineItemEntry | undefined = undefined;
  score = 0;
  similarity: number | undefined = undefined;

  /** Whether a line item with this score would take the lead (exact ties go by tie-break). */
  beatenBy(entry: LineItemEntry, score: number): boolean {
    return this.entry === undefined || ranksBefore(entry, score, this.entry, this.score);
  }
}

/**
 * The ad for one serve: among the line items eligible on this placement, the one with the highest
 * expected value per impression x contextual relevance; its creatives take turns.
 *
 * Every candidate list is sorted by expected value, so each is walked only while its next line
 * item could still win: a serve touches a handful of line items, not every one a keyword names.
 */
export function selectAd(
  index: AdIndex,
  placementId: string,
  placement: PlacementEntry,
  context: ServeContext,
  onVeto?: (veto: BrandSafetyVeto) => void,
  onHeldBack?: (heldBack: HeldBack) => void,
): Selection | undefined {
  const stamp = ++lastStamp;
  const found: Phrase[] = [];
  // Scanned separately so that a keyword never spans the end of the query and the start of the response.
  queryWords.scan(context.query);
  responseWords.scan(context.response);
  // Brand safety vetoes every ad, however it would have matched. Its phrases cost no vector and go
  // first; its similarity needs the conversation's vector, so it judges only a winner (below).
  const phraseVeto = index.brandSafety?.phraseVeto([queryWords, responseWords]);
  if (phraseVeto !== undefined) {
    onVeto?.(phraseVeto);
    return undefined;
  }
  // Embedding costs about as much as the rest of a keyword selection: done at most once, and only
  // when an opted-in line item could still win or brand safety must judge a winner.
  let conversation: Float32Array | undefined | null = null;
  const embedded = () => (conversation === null ? (conversation = conversationVector(index)) : conversation);
  markPhrases(queryWords, index.phrasesByFirstWord, stamp, found);
  markPhrases(responseWords, index.phrasesByFirstWord, stamp, found);

  const best = new Best();
  const eligible = (entry: LineItemEntry) => heldBackBy(entry, placementId, context, stamp) === undefined;
  const listOf = (lists: RankedLists) => (placement.certified ? lists.certified : lists.uncertified);
  // Only an `explain` request asks, so the usual serve pays nothing for it.
  if (onHeldBack !== undefined) {
    const heldBack = matchedButHeldBack([index.open, index.openByPlacement.get(placementId), ...found.map((phrase) => phrase.includedBy)], placement.certified, placementId, context, stamp);
    if (heldBack !== undefined) onHeldBack(heldBack);
  }

  // Line items without include keywords score their expected value: the first eligible one of a list
  // is its best. They go first because they cost the least to find and set the bar for the rest.
  for (const lists of [index.open, index.openByPlacement.get(placementId)]) {
    if (lists === undefined) continue;
    for (const entry of listOf(lists)) {
      if (!best.beatenBy(entry, entry.expectedValue)) break;
      if (eligible(entry)) {
        best.entry = entry;
        best.score = entry.expectedValue;
        best.similarity = undefined;
        break;
      }
    }
  }
  // No line item can match more keywords than the serve contains, nor more than it names. The
  // keyword with the most valuable line item goes first, so that the bar rises early.
  const maxRelevance = relevance(found.length);
  sortByTopValue(found, placement.certified);
  for (const phrase of found) {
    for (const entry of listOf(phrase.includedBy)) {
      const value = entry.expectedValue;
      if (best.entry !== undefined && value * maxRelevance < best.score) break;
      if (entry.seenStamp === stamp) continue;
      entry.seenStamp = stamp;
      if (best.entry !== undefined && value * relevance(Math.min(found.length, entry.includeCount)) < best.score) continue;
      const score = value * relevance(keywordsFound(entry, stamp));
      if (best.beatenBy(entry, score) && eligible(entry)) {
        best.entry = entry;
        best.score = score;
        best.similarity = undefined;
      }
    }
  }
  // Opted-in line items without a keyword found: eligible when the conversation is similar enough,
  // and then ranked by similarityRelevance (at most one keyword's worth).
  const matrix = index.semanticMatrices === undefined ? undefined : placement.certified ? index.semanticMatrices.certified : index.semanticMatrices.uncertified;
  if (matrix !== undefined && rowsThatCouldWin(matrix, best) > 0) {
    const vector = embedded();
    if (vector !== undefined) similarMatch(matrix, vector, best, eligible, stamp);
  }
  const winner = best.entry;
  if (winner === undefined) return undefined;
  // Brand safety by similarity: matching's vector when it made one, else a bound that clears most
  // conversations without embedding them (the same verdicts).
  const brandSafety = index.brandSafety;
  const cleared = brandSafety === undefined || (conversation === null && brandSafety.clearsBySimilarity(queryWords, responseWords));
  const veto = cleared ? undefined : brandSafety.similarityVeto(embedded(), [queryWords, responseWords]);
  if (veto !== undefined) {
    onVeto?.(veto);
    return undefined;
  }
  const creatives = creativesOf(winner);
  const creative = creatives[winner.nextCreative++ % creatives.length]!;
  return context.explain === false ? { lineItem: winner, creative } : { lineItem: winner, creative, match: explain(winner, best.similarity, stamp) };
}

/**
 * Ranks of the matrix scanned first; each later chunk is twice the one before. After each chunk the
 * ranks that could still win are counted again: the first ranks usually hold the winner, which
 * raises the bar over most later ranks, while a conversation nothing is similar to still scans
 * every rank in a few chunks. A clustered matrix scans every rank left in its second chunk: of a
 * chunk's ranks it reads only the probed clusters' rows (about 20 of 512 ranks at 10,000 line
 * items), so what a chunk costs is the call (its searches in each probed cluster), and a
 * conversation nothing is similar to made five calls for what two do (bench/README.md, "Semantic:
 * session 41"). The walk stops at the same rank whatever the chunks: the winners are the same.
 */
const FIRST_SCAN_CHUNK_RANKS = 512;

/**
 * Scans the opted-in line items that could still win (the matrix is ranked by expected value, so
 * they are its first rows) for those that may be similar enough, then judges those best expected
 * value first by the exact similarity, only while one could still win, and the cheap filters last.
 * The scan goes a chunk at a time: once a chunk yields a better ad, the rows after the new bar are
 * never scanned (the walk would have stopped before them anyway).
 *
 * The walk reads a candidate's expected value, vector and min_similarity from the matrix, by rank,
 * and its line item only when its exact score could take the lead: of the 6.9 candidates of a
 * conversation no keyword matches, most fall short, and each line item read costs cold cache lines.
 * The filters are tests without side effects, so their order changes no winner; the seen stamp only
 * skips a line item the keyword walk judged already (its keyword score is at least what a
 * similarity can give it). So a row (a distinct vector, SemanticMatrix.sameVector) has all its line
 * items judged when it is, one similarity for them all, though some rank after rows judged later.
 */
function similarMatch(
  matrix: SemanticMatrix<LineItemEntry>,
  conversation: Float32Array,
  best: Best,
  eligible: (entry: LineItemEntry) => boolean,
  stamp: number,
): void {
  const mostRelevant = relevance(1);
  const { entries, vectors, minSimilarities, expectedValues, sameVector } = matrix;
  if (best.entry !== undefined && noneCouldWin(matrix, conversation, best)) return;
  if (!matrix.prepare(conversation)) return;
  // A clustered matrix scans only the probed clusters' rows of each chunk of ranks.
  const clustered = matrix.clustered;
  let chunk = FIRST_SCAN_CHUNK_RANKS;
  for (let from = 0, rows = rowsThatCouldWin(matrix, best); from < rows; from += chunk, chunk = clustered ? entries.length : chunk * 2, rows = rowsThatCouldWin(matrix, best)) {
    const count = matrix.scan(from, Math.min(rows, from + chunk));
    const candidates = matrix.candidateRows();
    const bounds = matrix.candidateBounds();
    for (let i = 0; i < count; i++) {
      // A row is a distinct vector, ranked as its first line item; its others follow by sameVector, ranked lower.
      const first = candidates[i]!;
      if (best.entry !== undefined && expectedValues[first]! * mostRelevant < best.score) return;
      const atBound = similarityRelevance(bounds[i]!);
      let similar = NaN;
      for (let rank = first; rank >= 0; rank = sameVector[rank]!) {
        const value = expectedValues[rank]!;
        // Below the best even at its bound (an exact tie goes on to the tie-break): so is every later line item of the row.
        if (best.entry !== undefined && value * atBound < best.score) break;
        if (Number.isNaN(similar)) similar = similarity(conversation, vectors[rank]!);
        if (similar < minSimilarities[rank]!) continue;
        const score = value * similarityRelevance(similar);
        const entry = entries[rank]!;
        if (entry.seenStamp === stamp || !best.beatenBy(entry, score) || !eligible(entry)) continue;
        entry.seenStamp = stamp;
        best.entry = entry;
        best.score = score;
        best.similarity = similar;
      }
    }
  }
}

/**
 * Whether no line item of the matrix can beat the best so far, as bounded without the centres: when
 * the ranks that could (rowsThatCouldWin) are few (TOP_RANKS), every one of them, whatever its
 * cluster, is bounded in one contiguous scan of their rows (SemanticMatrix.scanTopRanks), and
 * none's expected value x its bound's relevance reaches the best's score (an exact tie could still
 * win by tie-break). Each bound is at least its exact similarity, so the walk below would take none
 * of them either: the same winner, without comparing the centres and scanning the probed clusters.
 * Of the serve-semantic bench's 500 bodies, 109 have a keyword winner and 5-256 ranks that could
 * beat it, none of which does (bench/README.md, "Semantic: session 41"); the 67 with at most 64
 * (TOP_RANKS) skip the centres and the scans this way ("Semantic: session 42").
 */
function noneCouldWin(matrix: SemanticMatrix<LineItemEntry>, conversation: Float32Array, best: Best): boolean {
  const count = matrix.scanTopRanks(conversation, rowsThatCouldWin(matrix, best));
  if (count < 0) return false;
  const ranks = matrix.topCandidateRanks();
  const bounds = matrix.topCandidateBounds();
  const values = matrix.expectedValues;
  for (let i = 0; i < count; i++) if (!(values[ranks[i]!]! * similarityRelevance(bounds[i]!) < best.score)) return false;
  return true;
}

/**
 * How many line items of a matrix (ranked by expected value) could beat the best so far with a
 * similarity match (binary search over its expected values, not its line items: no cold line item
 * read per step; the same test as the walk's), all of them while there is none.
 */
function rowsThatCouldWin(matrix: SemanticMatrix<LineItemEntry>, best: Best): number {
  const count = matrix.entries.length;
  if (best.entry === undefined) return count;
  const values = matrix.expectedValues;
  const mostRelevant = relevance(1);
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (!(values[middle]! * mostRelevant < best.score)) low = middle + 1;
    else high = middle;
  }
  return low;
}

function explain(winner: LineItemEntry, similar: number | undefined, stamp: number): MatchExplanation {
  if (similar !== undefined) return { by: 'similarity', similarity: Math.round(similar * 1000) / 1000, min_similarity: winner.semantic!.minSimilarity };
  const keywords = winner.includePhrases.filter((phrase) => phrase.stamp === stamp).map((phrase) => phrase.words.join(' '));
  return keywords.length > 0 ? { by: 'keywords', keywords } : { by: 'untargeted' };
}

/** Marks every keyword (include or exclude) present in the words, and collects the ones that include line items. */
function markPhrases(words: WordScan, phrasesByFirstWord: FirstWordMap<Phrase>, stamp: number, found: Phrase[]): void {
  for (let i = 0; i < words.count; i++) {
    const candidates = phrasesByFirstWord.get(words.hashes[i]!);
    if (candidates === undefined) continue;
    for (const phrase of candidates) {
      if (phrase.stamp === stamp || !phraseAt(words, i, phrase)) continue;
      phrase.stamp = stamp;
      if (phrase.includedBy.certified.length > 0) found.push(phrase);
    }
  }
}

/**
 * Whether the phrase's words are the scan's from `start` on, in a row: how a keyword is found in a
 * context (the match preview asks it too). Hashes first (cheap, and nearly always decisive; the
 * first word's already matched where a serve looks a phrase up), then the words themselves.
 */
export function phraseAt(words: WordScan, start: number, phrase: Pick<Phrase, 'words' | 'hashes'>): boolean {
  const length = phrase.words.length;
  if (start + length > words.count) return false;
  for (let k = 1; k < length; k++) if (words.hashes[start + k] !== phrase.hashes[k]) return false;
  for (let k = 0; k < length; k++) if (!words.wordIs(start + k, phrase.words[k]!)) return false;
  return true;
}

function topValue(list: LineItemEntry[]): number {
  return list.length > 0 ? list[0]!.expectedValue : 0;
}

/** Keyword lists this short are sorted in place here: Array.prototype.sort allocates its work arrays on every call (half a KB a serve). */
const INSERTION_SORT_MAX = 16;

/** The keywords by their lists' most valuable line item, the highest first (stable, as Array.prototype.sort). */
function sortByTopValue(found: Phrase[], certified: boolean): void {
  const valueOf = (phrase: Phrase) => topValue(certified ? phrase.includedBy.certified : phrase.includedBy.uncertified);
  if (found.length > INSERTION_SORT_MAX) {
    found.sort((a, b) => valueOf(b) - valueOf(a));
    return;
  }
  for (let i = 1; i < found.length; i++) {
    const phrase = found[i]!;
    const value = valueOf(phrase);
    let j = i - 1;
    for (; j >= 0 && valueOf(found[j]!) < value; j--) found[j + 1] = found[j]!;
    found[j + 1] = phrase;
  }
}

/** The entry's include keywords this serve found; the first two read from the entry itself (see LineItemEntry.includeCount). */
function keywordsFound(entry: LineItemEntry, stamp: number): number {
  let count = entry.firstInclude?.stamp === stamp ? 1 : 0;
  if (entry.secondInclude?.stamp === stamp) count += 1;
  const phrases = entry.includeCount > 2 ? entry.includePhrases : undefined;
  if (phrases !== undefined) for (let i = 2; i < phrases.length; i++) if (phrases[i]!.stamp === stamp) count += 1;
  return count;
}

/**
 * The line items of these lists the conversation matched that were held back, counted by reason
 * (each once, whatever lists it is on); undefined when none was. On an uncertified placement, the
 * certified list's line items that are not on the uncertified one are there only for their price
 * model: held back for certification.
 */
function matchedButHeldBack(
  lists: (RankedLists | undefined)[],
  certified: boolean,
  placementId: string,
  context: ServeContext,
  stamp: number,
): HeldBack | undefined {
  const judged = new Set<LineItemEntry>();
  let heldBack: HeldBack | undefined;
  const count = (reason: HeldBackReason) => ((heldBack ??= {})[reason] = (heldBack[reason] ?? 0) + 1);
  for (const list of lists) {
    if (list === undefined) continue;
    for (const entry of certified ? list.certified : list.uncertified) {
      if (judged.has(entry)) continue;
      judged.add(entry);
      const reason = heldBackBy(entry, placementId, context, stamp);
      if (reason !== undefined) count(reason);
    }
  }
  if (!certified) {
    for (const list of lists) {
      if (list === undefined) continue;
      for (const entry of list.certified) {
        if (judged.has(entry)) continue;
        judged.add(entry);
        count('certification');
      }
    }
  }
  return heldBack;
}

/**
 * Why the line item may not be served, or undefined when it may: inside its flight, budget left
 * (today's as paced, lifetime and this month's, enough for one more event at its price to be billed under the billing
 * ceilings, billingCeilingRule.ts, and not held by outstanding serves: outOfBudget), the user below the frequency cap (impressions plus serves still
 * waiting for theirs), placement and language targeting, and no excluded keyword in the context.
 */
function heldBackBy(entry: LineItemEntry, placementId: string, context: ServeContext, stamp: number): HeldBackReason | undefined {
  if (context.nowMs < entry.startsAtMs || context.nowMs >= entry.endsAtMs) return 'flight';
  const budget = outOfBudget(entry, context.evenShare, context.publisherId);
  if (budget !== undefined) return budget;
  const cap = entry.frequencyCap;
  if (cap !== null) {
    if (context.userKey === undefined) return 'no_user_id';
    if ((cap.counts.get(context.userKey) ?? 0) + (cap.outstanding.get(context.userKey) ?? 0) >= cap.impressions) return 'frequency_cap';
  }
  const language = context.language;
  if (entry.placementsInclude !== null && !entry.placementsInclude.has(placementId)) return 'targeting';
  if (entry.placementsExclude !== null && entry.placementsExclude.has(placementId)) return 'targeting';
  if (language !== undefined && entry.languages !== null && !entry.languages.has(language)) return 'targeting';
  if (entry.countriesInclude !== null && (context.country === undefined || !entry.countriesInclude.has(context.country))) return 'targeting';
  if (entry.countriesExclude !== null && context.country !== undefined && entry.countriesExclude.has(context.country)) return 'targeting';
  if (entry.dayparts !== null && !inDaypart(entry.dayparts, context.nowMs)) return 'targeting';
  for (const phrase of entry.excludePhrases) if (phrase.stamp === stamp) return 'targeting';
  return undefined;
}

/**
 * How much of what is left of a line item's released budget other publishers' outstanding serves
 * may hold against a publisher's serve. Without a bound, a publisher whose serves are never shown
 * (prefetched, never scrolled into view, or asked for to take a rival's demand away) held the whole
 * budget for OUTSTANDING_SERVE_MS on every placement (try36 M4). A publisher's own serves count in
 * full, so one publisher's burst is held to what is left as before; the serves of several
 * publishers at once can pass it, by up to this share's complement each (docs/serving.md).
 */
const OTHER_PUBLISHERS_HOLD_SHARE = 0.5;

/**
 * Why the line item has no budget left to serve on `publisherId`'s placement, or undefined when it
 * has: `budget` when today's spend reached today's budget (as paced: `evenShare` is
 * dailyAllowanceShare of the serve's time), its lifetime or this month's spend its lifetime budget
 * or the monthly ceiling, or one more event at its price would pass a billing ceiling;
 * `outstanding_serves` when the budget left is held by this instance's serves still waiting for
 * their events, at their expected cost (SpendPacing.served): the publisher's own in full, other
 * publishers' up to OTHER_PUBLISHERS_HOLD_SHARE of what is left. Against today's released budget
 * the holds must stay below what is left, as spend alone must: the serve that passes it is billed
 * (the daily ceiling is twice the budget). Against the lifetime budget and this month's ceiling,
 * which bill nothing beyond them, the holds plus this serve's own expected cost must fit, so that
 * the last serve is not one that could only be shown unpaid (try37 L2: 0.009 held of 0.010 left
 * served a fourth 0.003 impression, stored over_lifetime_budget). Without a publisher (the
 * advertiser's match preview) it is judged for the publishers whose serves wait: every outstanding
 * serve counts. The serve and the match preview judge it here alike.
 */
export function outOfBudget(entry: LineItemEntry, evenShare: number, publisherId?: string): 'budget' | 'outstanding_serves' | undefined {
  const spend = entry.spend;
  const released = entry.evenPacing ? entry.budgetNanos * evenShare : entry.budgetNanos;
  // What is left before each limit: today's released budget, and the lifetime budget or this
  // month's ceiling (the holds count against all three, try36 L1: a burst passed a lifetime budget).
  const releasedLeft = released - spend.nanos;
  const ceilingLeft = ceilingRoomNanos(entry);
  if (releasedLeft <= 0 || ceilingLeft <= 0) return 'budget';
  if (billingCeilingPassed(entry, entry.priceNanos, NOTHING_HELD, 'today') !== undefined) return 'budget';
  const outstanding = spend.outstandingNanos;
  if (outstanding === 0) return undefined;
  // This serve's own hold, as SpendPacing.served will count it.
  const expected = usdToNanos(entry.expectedValue);
  if (outstanding < releasedLeft && outstanding + expected <= ceilingLeft) return undefined;
  const own = publisherId === undefined ? outstanding : (spend.publisherHolds?.get(publisherId)?.nanos ?? 0);
  const held = own + Math.min(outstanding - own, OTHER_PUBLISHERS_HOLD_SHARE * Math.min(releasedLeft, ceilingLeft));
  return held >= releasedLeft || held + expected > ceilingLeft ? 'outstanding_serves' : undefined;
}

/** Whether the serve's time falls in one of the line item's dayparts, in its zone. */
export function inDaypart(dayparts: { timezone: string; minutesByDay: number[][] }, nowMs: number): boolean {
  const { day, minute } = localTime(dayparts.timezone, nowMs);
  const windows = dayparts.minutesByDay[day]!;
  for (let i = 0; i < windows.length; i += 2) if (minute >= windows[i]! && minute < windows[i + 1]!) return true;
  return false;
}
