import { z } from 'zod';
import { WordScan, wordHash, wordsOf } from './contextWords.js';
import { serveRequestBody } from './serveSchemas.js';
import { inDaypart, outOfBudget, phraseAt } from './selectAd.js';
import { dailyAllowanceShare } from './spendPacing.js';
import { similarity } from '../semantic/semanticModel.js';
import { DEFAULT_MIN_SIMILARITY } from '../semantic/semanticDefaults.js';
import type { AdIndex, LineItemEntry } from './adIndex.js';

/** The preview's body: a serve's context and language, with the serve's limits (serveSchemas.ts). */
export const matchPreviewBody = z.strictObject({
  context: serveRequestBody.shape.context,
  language: serveRequestBody.shape.language,
});
export type MatchPreviewBody = z.infer<typeof matchPreviewBody>;

/** What the line item's own targeting says, as stored (management's targeting). */
export interface PreviewedLineItem {
  id: string;
  targeting: { keywords?: { include?: string[]; exclude?: string[] }; semantic?: { enabled: boolean; min_similarity?: number } } | null;
}

/**
 * Why one line item would or would not be served next to a conversation, judged as a serve judges
 * it (selectAd.ts): its include and exclude keywords found, its similarity against its
 * min_similarity, brand safety's veto, and what holds it back now (not in the index, outside its
 * flight or daypart, budget spent, budget held by serves waiting for their events, another
 * language). `entry` is the line item in this instance's ad
 * index (found by id), which gives its vector and what holds it back; the keywords and the threshold
 * are the line item's as stored, so a preview right after a write judges what was written (the index
 * takes the write within a second). A preview has no placement, user or address: the targeting that
 * needs them is listed under `depends_on`, not judged. The ranking against other line items (bids,
 * expected value) is not part of it.
 */
export function previewMatch(
  index: Pick<AdIndex, 'semanticModel' | 'brandSafety'>,
  entry: LineItemEntry | undefined,
  lineItem: PreviewedLineItem,
  body: MatchPreviewBody,
  nowMs: number,
) {
  const [query, response] = [new WordScan(), new WordScan()];
  query.scan(body.context.query);
  response.scan(body.context.response);
  const scans = [query, response];
  const include = lineItem.targeting?.keywords?.include ?? [];
  const includeFound = include.filter((keyword) => scans.some((scan) => contains(scan, keyword)));
  const excludeFound = (lineItem.targeting?.keywords?.exclude ?? []).filter((keyword) => scans.some((scan) => contains(scan, keyword)));

  const conversation = index.semanticModel?.embedConversation(query, response);
  const opted = lineItem.targeting?.semantic?.enabled === true;
  // The line item's vector as the serve uses it: only an indexed, opted-in line item has one.
  const score = entry?.semantic && conversation ? Math.round(similarity(conversation, entry.semantic.vector) * 1000) / 1000 : null;
  const minSimilarity = lineItem.targeting?.semantic?.min_similarity ?? DEFAULT_MIN_SIMILARITY;
  // As stored: right after a write that opts out, the index may still hold the old vector a moment.
  const bySimilarity = opted && score !== null && score >= minSimilarity;
  const veto = index.brandSafety?.veto(scans, conversation);

  const matchedBy = excludeFound.length > 0 ? null : includeFound.length > 0 ? 'keywords' : include.length === 0 && !opted ? 'untargeted' : bySimilarity ? 'similarity' : null;
  const heldBack = entry === undefined ? ['not_in_index'] : heldBackNow(entry, body.language, nowMs);
  return {
    line_item_id: lineItem.id,
    would_match: matchedBy !== null && veto === undefined && heldBack.length === 0,
    matched_by: matchedBy,
    keywords: { include_found: includeFound, exclude_found: excludeFound },
    similarity: {
      enabled: opted,
      similarity: score,
      min_similarity: minSimilarity,
      matches: bySimilarity,
    },
    brand_safety: veto === undefined ? null : { topic: veto.topic, judged_by: veto.by },
    held_back: heldBack,
    depends_on: entry === undefined ? [] : dependsOn(entry),
  };
}

/** Whether a keyword is found anywhere in the scan, as a serve finds it (selectAd's phraseAt). */
function contains(scan: WordScan, keyword: string): boolean {
  const words = wordsOf(keyword);
  if (words.length === 0) return false;
  const phrase = { words, hashes: words.map(wordHash) };
  for (let start = 0; start < scan.count; start++) if (phraseAt(scan, start, phrase)) return true;
  return false;
}

/** What holds the indexed line item back whatever the placement or user, in selectAd's heldBackBy order. */
function heldBackNow(entry: LineItemEntry, language: string | undefined, nowMs: number): string[] {
  const reasons: string[] = [];
  if (nowMs < entry.startsAtMs || nowMs >= entry.endsAtMs) reasons.push('flight');
  // No publisher: judged for the publishers whose serves wait (another publisher's placement may still get it).
  const budget = outOfBudget(entry, dailyAllowanceShare(nowMs));
  if (budget !== undefined) reasons.push(budget);
  if (language !== undefined && entry.languages !== null && !entry.languages.has(language)) reasons.push('language');
  if (entry.dayparts !== null && !inDaypart(entry.dayparts, nowMs)) reasons.push('daypart');
  return reasons;
}

/** The targeting a serve's placement, user or address decides, which a preview cannot. */
function dependsOn(entry: LineItemEntry): string[] {
  const depends: string[] = [];
  if (entry.placementsInclude !== null || entry.placementsExclude !== null) depends.push('placements');
  if (entry.model === 'tCPM') depends.push('certification');
  if (entry.countriesInclude !== null || entry.countriesExclude !== null) depends.push('countries');
  if (entry.frequencyCap !== null) depends.push('frequency_cap');
  return depends;
}
