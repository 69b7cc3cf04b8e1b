import { ranksBefore, type AdIndex, type LineItemEntry, type Phrase, type PlacementEntry, type ServableCreative } from './adIndex.js';
import { wordsOf } from './contextWords.js';

export interface ServeContext {
  query: string;
  response: string;
  /** ISO 639-1, lowercase; undefined matches every language targeting. */
  language?: string;
}

export interface Selection {
  lineItem: LineItemEntry;
  creative: ServableCreative;
}

/**
 * Contextual relevance: each distinct include keyword found in the query or the response adds half
 * of the line item's expected value, counting at most four keywords (so at most x3). Line items
 * without include keywords score x1.
 */
export const RELEVANCE_PER_KEYWORD = 0.5;
export const MAX_RELEVANT_KEYWORDS = 4;

export function relevance(matchedKeywords: number): number {
  return 1 + RELEVANCE_PER_KEYWORD * Math.min(matchedKeywords, MAX_RELEVANT_KEYWORDS);
}

// Each request marks the phrases it finds and the line items they include with its own stamp, so
// nothing is allocated per candidate and nothing has to be cleared afterwards.
let lastStamp = 0;

/**
 * The ad for one serve: among the line items eligible on this placement, the one with the highest
 * expected value per impression x contextual relevance; its creatives take turns.
 */
export function selectAd(index: AdIndex, placementId: string, placement: PlacementEntry, context: ServeContext): Selection | undefined {
  const stamp = ++lastStamp;
  const keywordMatched: LineItemEntry[] = [];
  // Scanned separately so that a keyword never spans the end of the query and the start of the response.
  markPhrases(wordsOf(context.query), index.phrasesByFirstWord, stamp, keywordMatched);
  markPhrases(wordsOf(context.response), index.phrasesByFirstWord, stamp, keywordMatched);

  let best: LineItemEntry | undefined;
  let bestScore = 0;
  for (const entry of keywordMatched) {
    if (entry.model === 'tCPM' && !placement.certified) continue;
    const score = entry.expectedValue * relevance(entry.matchCount);
    if ((best === undefined || ranksBefore(entry, score, best, bestScore)) && isEligible(entry, placementId, context.language, stamp)) {
      best = entry;
      bestScore = score;
    }
  }
  // The ranked lists are sorted best first, so the first eligible entry of each is its best.
  const lists = [index.open, index.openByPlacement.get(placementId)];
  for (const ranked of lists) {
    if (!ranked) continue;
    for (const entry of placement.certified ? ranked.certified : ranked.uncertified) {
      if (best !== undefined && !ranksBefore(entry, entry.expectedValue, best, bestScore)) break;
      if (isEligible(entry, placementId, context.language, stamp)) {
        best = entry;
        bestScore = entry.expectedValue;
        break;
      }
    }
  }
  if (!best) return undefined;
  const creative = best.creatives[best.nextCreative++ % best.creatives.length]!;
  return { lineItem: best, creative };
}

function markPhrases(words: string[], phrasesByFirstWord: Map<string, Phrase[]>, stamp: number, matched: LineItemEntry[]): void {
  for (let i = 0; i < words.length; i++) {
    const candidates = phrasesByFirstWord.get(words[i]!);
    if (candidates === undefined) continue;
    for (const phrase of candidates) {
      if (phrase.stamp === stamp || !phraseAt(words, i, phrase.words)) continue;
      phrase.stamp = stamp;
      for (const entry of phrase.includedBy) {
        if (entry.matchStamp !== stamp) {
          entry.matchStamp = stamp;
          entry.matchCount = 0;
          matched.push(entry);
        }
        entry.matchCount += 1;
      }
    }
  }
}

function phraseAt(words: string[], start: number, phrase: string[]): boolean {
  if (start + phrase.length > words.length) return false;
  for (let k = 1; k < phrase.length; k++) if (words[start + k] !== phrase[k]) return false;
  return true;
}

/** Budget left today, placement and language targeting, and no excluded keyword in the context. */
function isEligible(entry: LineItemEntry, placementId: string, language: string | undefined, stamp: number): boolean {
  if (entry.spend.nanos >= entry.budgetNanos) return false;
  if (entry.placementsInclude !== null && !entry.placementsInclude.has(placementId)) return false;
  if (entry.placementsExclude !== null && entry.placementsExclude.has(placementId)) return false;
  if (language !== undefined && entry.languages !== null && !entry.languages.has(language)) return false;
  for (const phrase of entry.excludePhrases) if (phrase.stamp === stamp) return false;
  return true;
}
